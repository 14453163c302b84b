//! People: who may do what (their role), who did it and through what (an [`Actor`]), and the
//! record of it ([`AuditEntry`]).

use serde::{Deserialize, Serialize};

use super::Millis;
use blaise_protocol::string_enum;

string_enum!(
    /// What a person may do. Each role may do what the ones before it may.
    Role {
        /// Reads sessions, transcripts, agents, runners and environments.
        Viewer => "viewer",
        /// Also starts sessions, sends, answers permission requests, cancels and closes.
        Operator => "operator",
        /// Also manages agents, runners and their tokens, people, budgets, retries teardowns,
        /// and reads the audit trail.
        Admin => "admin",
    }
);

impl Role {
    /// Whether this role may do what `needed` may.
    pub fn allows(self, needed: Role) -> bool {
        self.rank() >= needed.rank()
    }

    fn rank(self) -> u8 {
        match self {
            Role::Viewer => 0,
            Role::Operator => 1,
            Role::Admin => 2,
        }
    }

    /// "a viewer", "an operator", "an admin".
    pub fn with_article(self) -> &'static str {
        match self {
            Role::Viewer => "a viewer",
            Role::Operator => "an operator",
            Role::Admin => "an admin",
        }
    }
}

string_enum!(
    /// Through what an action came.
    Channel {
        /// A program calling the API with a token.
        Api => "api",
        /// The `blaise` command (it says so in its user agent).
        Cli => "cli",
        /// A person's dashboard login.
        Dashboard => "dashboard",
        /// A Linear app's conversation (a message source).
        Linear => "linear",
        /// The server itself: its configuration when it starts (the admin token, the embedded
        /// runner).
        Server => "server",
    }
);

/// Who does something, with what role, through what.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    /// A person's name (`user add`), an identity provider's email, `admin` (the admin token),
    /// a source (`linear:coder`), or `blaise` (the server).
    pub who: String,
    pub role: Role,
    pub via: Channel,
}

/// The built-in admin's name: the admin token, and logins made with it.
pub const BUILT_IN_ADMIN: &str = "admin";

impl Actor {
    pub fn new(who: impl Into<String>, role: Role, via: Channel) -> Actor {
        Actor {
            who: who.into(),
            role,
            via,
        }
    }

    /// The server acting on its own configuration.
    pub fn server() -> Actor {
        Actor::new("blaise", Role::Admin, Channel::Server)
    }
}

/// A person with a personal API token (`blaise user add`). The token itself is never stored.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct User {
    pub name: String,
    pub role: Role,
    /// sha256 of the person's token, hex (the API never shows it).
    pub token_hash: String,
    pub created_at: Millis,
    /// Who added them.
    pub created_by: String,
}

/// Whose a token is: the built-in admin's (the admin token) or a person's.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenOwner {
    BuiltInAdmin,
    Person(User),
}

/// One state change, as the audit trail keeps it: who, with what role, through what, did what
/// to what, and when. Written in the transaction that made the change.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AuditEntry {
    /// Its place in the trail, from 1 (0 until stored).
    pub seq: i64,
    pub at: Millis,
    pub actor: String,
    pub role: Role,
    pub via: Channel,
    /// What was done: `session.start`, `permission.answer`, `runner.revoke`, … (see
    /// [`AuditAction`]).
    pub action: AuditAction,
    /// What it was done to: a session's id, an agent's, runner's or person's name.
    pub target: String,
    /// The session it concerns, if any: the trail is filtered by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// What changed, in a few words (`allow`, `role operator`, `scope: +agent coder`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Every kind of state change the audit trail records, named as the API and the CLI show it.
macro_rules! audit_actions {
    ($($variant:ident => $text:literal),+ $(,)?) => {
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum AuditAction { $($variant),+ }
        impl AuditAction {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            pub fn as_str(self) -> &'static str { match self { $(Self::$variant => $text),+ } }
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some(Self::$variant),)+ _ => None }
            }
        }
    };
}

audit_actions!(
    SessionStart => "session.start",
    SessionSend => "session.send",
    SessionCancel => "session.cancel",
    SessionClose => "session.close",
    SessionBudget => "session.budget",
    PermissionAnswer => "permission.answer",
    EnvironmentRetry => "environment.retry",
    AgentSet => "agent.set",
    RunnerAdd => "runner.add",
    RunnerScope => "runner.scope",
    RunnerToken => "runner.token",
    RunnerRevoke => "runner.revoke",
    UserAdd => "user.add",
    UserSet => "user.set",
    UserToken => "user.token",
    UserRemove => "user.remove",
    AdminToken => "admin_token.set",
    WebhookAdd => "webhook.add",
    WebhookRemove => "webhook.remove",
    Login => "login",
    Logout => "logout",
);

impl std::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for AuditAction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for AuditAction {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        AuditAction::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown audit action `{text}`")))
    }
}

string_enum!(
    /// How a person proved who they are when they logged in to the dashboard.
    #[derive(Default)]
    LoginMethod {
        /// A token pasted in the login page (the admin token, or their own).
        #[default]
        Token => "token",
        /// An identity provider (OpenID Connect).
        Oidc => "oidc",
    }
);

/// A sign-in with the identity provider under way: what the callback needs to finish it, kept
/// (by the hash of its `state`) from the redirect to the provider until the person comes back.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SignIn {
    /// sha256 of the `state` sent to the provider, hex.
    pub state_hash: String,
    /// The PKCE verifier of the code challenge sent.
    pub verifier: String,
    /// The nonce the ID token must carry.
    pub nonce: String,
    /// Where to go once signed in (a path on this server).
    pub next: Option<String>,
    pub expires_at: Millis,
}
