//! Why a hook call failed, in words an operator can act on, always naming the plug.

use std::fmt;
use std::time::Duration;

use wasmtime::Trap;

use crate::units::{format_duration, format_size};

/// What went wrong in one hook call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The plug returned an error.
    Plug {
        message: String,
        field: Option<String>,
    },
    /// The call ran past the plug's hook deadline and was stopped.
    Deadline(Duration),
    /// The plug tried to grow its memory past its cap.
    MemoryCap { cap: u64, asked: u64 },
    /// The plug overflowed its stack.
    StackOverflow,
    /// The plug trapped (a Rust plug panicked or aborted); `detail` is the
    /// last line it wrote to stderr, if any.
    Trap {
        trap: String,
        detail: Option<String>,
    },
    /// The plug answered with something the host refuses: a contribution
    /// beyond its grants, an oversized transcript entry.
    Refused(String),
    /// The plug could not be instantiated or called.
    Host(String),
}

/// A failed hook call of one plug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    pub plug_id: String,
    pub hook: &'static str,
    pub failure: Failure,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Plug {
                message,
                field: Some(field),
            } => write!(f, "`with.{field}`: {message}"),
            Failure::Plug {
                message,
                field: None,
            } => write!(f, "{message}"),
            Failure::Deadline(d) => write!(
                f,
                "stopped after its hook deadline of {} (raise `limits.hook_deadline` if the work is legitimate)",
                format_duration(*d)
            ),
            Failure::MemoryCap { cap, asked } => write!(
                f,
                "stopped: tried to grow its memory to {} past its cap of {} (`limits.memory`)",
                format_size(*asked),
                format_size(*cap)
            ),
            Failure::StackOverflow => write!(f, "stopped: stack overflow"),
            Failure::Trap {
                trap,
                detail: Some(d),
            } => write!(f, "crashed ({trap}): {d}"),
            Failure::Trap { trap, detail: None } => write!(f, "crashed ({trap})"),
            Failure::Refused(why) => write!(f, "refused: {why}"),
            Failure::Host(message) => write!(f, "{message}"),
        }
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plug `{}` failed in {}: {}",
            self.plug_id, self.hook, self.failure
        )
    }
}

impl std::error::Error for HookError {}

impl HookError {
    /// The error without the plug's last words (what it wrote to stderr
    /// before it trapped): a filter's may be the very text it was handed (a
    /// Rust panic quotes the string it failed to slice), which must not leave
    /// the runner unfiltered. The host gives a filter's errors so.
    pub fn without_last_words(mut self) -> HookError {
        if let Failure::Trap { detail, .. } = &mut self.failure {
            *detail = None;
        }
        self
    }
}

impl Failure {
    /// Whether the instance must be thrown away (wasmtime poisons an instance
    /// after a trap or an interrupted call).
    pub fn poisons(&self) -> bool {
        !matches!(self, Failure::Plug { .. } | Failure::Refused(_))
    }

    /// Classifies a wasmtime error from a hook call.
    pub fn from_wasmtime(
        err: &wasmtime::Error,
        deadline: Duration,
        memory_hit: Option<(u64, u64)>,
        stderr: Option<String>,
    ) -> Failure {
        if let Some((cap, asked)) = memory_hit {
            return Failure::MemoryCap { cap, asked };
        }
        match err.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => Failure::Deadline(deadline),
            Some(Trap::StackOverflow) => Failure::StackOverflow,
            Some(trap) => Failure::Trap {
                trap: trap_name(trap),
                detail: stderr,
            },
            None => Failure::Host(format!("{:#}", err)),
        }
    }
}

fn trap_name(trap: &Trap) -> String {
    match trap {
        Trap::UnreachableCodeReached => "panic or abort".into(),
        // Rust guests keep their stack in linear memory: overflowing it shows
        // up as an access below address 0.
        Trap::MemoryOutOfBounds => "out-of-bounds memory access, e.g. a stack overflow".into(),
        Trap::IntegerDivisionByZero => "division by zero".into(),
        other => other.to_string(),
    }
}
