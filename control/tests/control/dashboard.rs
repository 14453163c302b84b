//! The dashboard, rendered in headless Chromium.
