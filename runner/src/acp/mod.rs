//! The ACP client side of the runner: launching an agent and talking to it.
