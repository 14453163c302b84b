//! What each command of `blaise-runner` does, one module each (`dev` is the
//! crate `blaise-dev`; `start` and `run-one` are the library's daemon).

pub mod add;
pub mod check;
pub mod index;
pub mod inspect;
pub mod keygen;
pub mod lock;
pub mod new;
pub mod plug_test;
pub mod probe;
pub mod pull;
pub mod push;
pub mod search;
pub mod table;
