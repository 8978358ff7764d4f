//! The Cache webhooks: defaulting and validating functions (served by `cache_webhook`).
