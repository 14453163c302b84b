use crate::PlugError;

// wit-bindgen already implements Display and Error for `plug-error`.
impl PlugError {
    /// An error for the operator.
    pub fn new(message: impl Into<String>) -> PlugError {
        PlugError {
            message: message.into(),
            field: None,
        }
    }

    /// An error caused by the `with:` field `field` (e.g. `repo`).
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> PlugError {
        PlugError {
            message: message.into(),
            field: Some(field.into()),
        }
    }
}
