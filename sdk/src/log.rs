//! Logging into the runner's log, tagged with the plug id and session.

use crate::bindings::blaise::plug::log::{Level, log};

pub fn trace(message: impl AsRef<str>) {
    log(Level::Trace, message.as_ref());
}
pub fn debug(message: impl AsRef<str>) {
    log(Level::Debug, message.as_ref());
}
pub fn info(message: impl AsRef<str>) {
    log(Level::Info, message.as_ref());
}
pub fn warn(message: impl AsRef<str>) {
    log(Level::Warn, message.as_ref());
}
pub fn error(message: impl AsRef<str>) {
    log(Level::Error, message.as_ref());
}
