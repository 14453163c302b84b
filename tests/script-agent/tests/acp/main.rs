//! The script agent as a real child process, driven through the runner's
//! ACP client (`blaise_runner::acp`).

mod lifecycle;
mod sessions;
mod support;
mod turns;
