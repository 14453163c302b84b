//! A plug that implements every hook and does nothing in any of them, so that
//! benchmarks measure the host alone.

use blaise_plug::{Context, Contribution, PauseInfo, Plug, PlugError, PlugInfo, TeardownInfo};

struct Noop;

#[blaise_plug::plug]
impl Plug for Noop {
    fn describe() -> PlugInfo {
        PlugInfo::builder("noop", env!("CARGO_PKG_VERSION"))
            .can_resume(true)
            .build()
    }

    // Written out (doing nothing) so that the runner calls each of them.
    fn on_start(_ctx: &Context) -> Result<Contribution, PlugError> {
        Ok(Contribution::default())
    }

    fn on_resume(_ctx: &Context) -> Result<Contribution, PlugError> {
        Ok(Contribution::default())
    }

    fn on_pause(_ctx: &Context, _info: &PauseInfo) -> Result<(), PlugError> {
        Ok(())
    }

    fn on_teardown(_ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        Ok(())
    }
}
