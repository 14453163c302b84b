//! What each role may do on the dashboard, and pages cut to it: a form a person's role may not
//! post is not shown to them (the route refuses it all the same, naming the role it needs).

use crate::model::Role;

/// The role a dashboard form's `action` needs (POST).
pub fn needs(action: &str) -> Role {
    let parts: Vec<&str> = action.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["logout"] | ["login"] => Role::Viewer,
        ["sessions", _, "budget"] => Role::Admin,
        ["sessions", ..] => Role::Operator,
        _ => Role::Admin,
    }
}

/// `html` as `role` may use it: each `<details>` holding a form it may not post goes whole, then
/// each such form, then each link marked `data-needs` a role it lacks.
pub fn cut_to(html: &str, role: Role) -> String {
    if role == Role::Admin {
        return html.to_owned();
    }
    let may_post = |element: &str| {
        element
            .find("<form method=\"post\" action=\"")
            .map(|at| {
                let rest = &element[at + "<form method=\"post\" action=\"".len()..];
                let action = &rest[..rest.find('"').unwrap_or(rest.len())];
                role.allows(needs(action))
            })
            .unwrap_or(true)
    };
    let html = without(html, "<details", "</details>", |details| {
        let mut rest = details;
        while let Some(at) = rest.find("<form method=\"post\"") {
            if !may_post(&rest[at..]) {
                return true;
            }
            rest = &rest[at + 1..];
        }
        false
    });
    let html = without(&html, "<form method=\"post\"", "</form>", |form| {
        !may_post(form)
    });
    without(&html, "<a ", "</a>", |link| {
        let open = &link[..link.find('>').unwrap_or(link.len())];
        Role::ALL
            .iter()
            .any(|r| open.contains(&format!("data-needs=\"{r}\"")) && !role.allows(*r))
    })
}

/// `html` without the elements from `open` to the first `close` after it that `drop` picks (the
/// dashboard's pages nest neither forms, links nor disclosures in their own kind).
fn without(html: &str, open: &str, close: &str, drop: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(open) {
        let Some(len) = rest[at..].find(close).map(|end| end + close.len()) else {
            break;
        };
        let element = &rest[at..at + len];
        out.push_str(&rest[..at]);
        if !drop(element) {
            out.push_str(element);
        }
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Who may post each of the dashboard's forms.
    #[test]
    fn each_form_needs_the_role_of_its_action() {
        for (action, role) in [
            ("/logout", Role::Viewer),
            ("/sessions", Role::Operator),
            ("/sessions/ses_0123456789abcdef/messages", Role::Operator),
            ("/sessions/ses_0123456789abcdef/cancel", Role::Operator),
            ("/sessions/ses_0123456789abcdef/close", Role::Operator),
            (
                "/sessions/ses_0123456789abcdef/permissions/p-1/answer",
                Role::Operator,
            ),
            ("/sessions/ses_0123456789abcdef/budget", Role::Admin),
            ("/environments/env_0123456789abcdef/retry", Role::Admin),
            ("/agents", Role::Admin),
            ("/runners", Role::Admin),
            ("/runners/r1/scope", Role::Admin),
            ("/runners/r1/token", Role::Admin),
            ("/runners/r1/revoke", Role::Admin),
            ("/anything-new", Role::Admin),
        ] {
            assert_eq!(needs(action), role, "{action}");
        }
    }

    #[test]
    fn a_page_shows_a_role_only_what_it_may_post() {
        let page = "<a href=\"/\">Sessions</a><a href=\"/audit\" data-needs=\"admin\">Audit</a>\
            <form method=\"post\" action=\"/sessions/s/messages\"><button>Send</button></form>\
            <details id=\"budget-form\"><summary>Budget</summary><form method=\"post\" action=\"/sessions/s/budget\"></form></details>\
            <details open><summary>Filters</summary><form method=\"get\" action=\"/\"></form></details>\
            <form method=\"post\" action=\"/logout\"><button>Log out</button></form>";
        let viewer = cut_to(page, Role::Viewer);
        assert!(!viewer.contains("/messages"), "{viewer}");
        assert!(!viewer.contains("Budget"), "{viewer}");
        assert!(!viewer.contains("Audit"), "{viewer}");
        assert!(
            viewer.contains("Filters") && viewer.contains("/logout"),
            "{viewer}"
        );
        assert!(viewer.contains(">Sessions</a>"), "{viewer}");
        let operator = cut_to(page, Role::Operator);
        assert!(operator.contains("/messages"), "{operator}");
        assert!(
            !operator.contains("Budget") && !operator.contains("Audit"),
            "{operator}"
        );
        assert_eq!(cut_to(page, Role::Admin), page);
    }
}
