//! A plug that implements every hook and does nothing in any of them, so that
//! benchmarks measure the host alone.

use blaise_plug::{Hook, Plug, PlugInfo, export_plug};

struct Noop;

impl Plug for Noop {
    fn describe() -> PlugInfo {
        PlugInfo::builder("noop", env!("CARGO_PKG_VERSION"))
            .can_resume(true)
            .hooks(&[
                Hook::OnStart,
                Hook::OnResume,
                Hook::OnPause,
                Hook::OnTeardown,
            ])
            .build()
    }
}

export_plug!(Noop);
