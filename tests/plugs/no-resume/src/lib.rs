//! A plug that cannot resume: the startup check must refuse it when the
//! agent's idle policy is to pause.

use blaise_plug::{Plug, PlugInfo};

struct NoResume;

#[blaise_plug::plug]
impl Plug for NoResume {
    fn describe() -> PlugInfo {
        PlugInfo::builder("no-resume", env!("CARGO_PKG_VERSION"))
            .description("test plug whose environment does not survive a pause")
            .can_resume(false)
            .build()
    }
}
