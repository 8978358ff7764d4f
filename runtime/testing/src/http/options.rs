//! A write's options from its query, decoded and checked as the apiserver checks them
//! (`apimachinery:pkg/apis/meta/v1/validation`): every error collected into one 422 on
//! `CreateOptions`, `UpdateOptions`, `PatchOptions` or `DeleteOptions`.

use serde_json::{Map, Value, json};

use super::query::Query;
use crate::decode::FieldValidation;
use crate::gostring;
use crate::state::WriteOptions;
use crate::status::ApiError;
use kubegen_runtime::fieldpath::managed::manager_from_user_agent;
use kubegen_runtime::validation::{BadValue, FieldError};

/// The longest `fieldManager` the apiserver accepts, in bytes.
const MAX_FIELD_MANAGER: usize = 128;

/// Which write the options are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Write {
    Create,
    Update,
    /// A patch; `apply` for server-side apply.
    Patch {
        apply: bool,
    },
}

impl Write {
    fn kind(self) -> &'static str {
        match self {
            Write::Create => "CreateOptions",
            Write::Update => "UpdateOptions",
            Write::Patch { .. } => "PatchOptions",
        }
    }
}

/// The options of a create, update or patch: 422 when the apiserver refuses them. Without a
/// `fieldManager`, the manager is named after the User-Agent.
pub(super) fn write(
    query: &Query,
    write: Write,
    user_agent: &str,
) -> Result<WriteOptions, ApiError> {
    let manager = query.first_raw("fieldManager").unwrap_or_default();
    let validation = query.first_raw("fieldValidation").unwrap_or_default();
    let dry_run = query.all("dryRun");
    let mut errors = Vec::new();
    if let Write::Patch { apply } = write {
        if apply && manager.is_empty() {
            errors.push(FieldError::required(
                "fieldManager",
                "is required for apply patch",
            ));
        }
        if !apply && query.has("force") {
            errors.push(FieldError::forbidden(
                "force",
                "may not be specified for non-apply patch",
            ));
        }
    }
    errors.extend(field_manager_errors(manager));
    errors.extend(dry_run_errors(&dry_run));
    let field_validation = match validation {
        b"" | b"Warn" => FieldValidation::Warn,
        b"Ignore" => FieldValidation::Ignore,
        b"Strict" => FieldValidation::Strict,
        other => {
            let supported = ["", "Ignore", "Strict", "Warn"].map(String::from);
            errors.push(FieldError::not_supported(
                "fieldValidation",
                BadValue::Marshalled(gostring::quote(other)),
                &supported,
            ));
            FieldValidation::Warn
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::invalid("meta.k8s.io", write.kind(), "", &errors));
    }
    let field_manager = match manager.is_empty() {
        true => manager_from_user_agent(user_agent),
        false => String::from_utf8_lossy(manager).into_owned(),
    };
    Ok(WriteOptions {
        dry_run: !dry_run.is_empty(),
        field_manager: Some(field_manager),
        force: query.go_bool("force").unwrap_or(false),
        field_validation,
    })
}

/// `ValidateFieldManager`: at most 128 bytes, and one error per rune `unicode.IsPrint`
/// refuses, at its byte offset.
fn field_manager_errors(manager: &[u8]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if manager.len() > MAX_FIELD_MANAGER {
        errors.push(FieldError::too_long(
            "fieldManager",
            MAX_FIELD_MANAGER as i64,
        ));
    }
    for (offset, c, _) in gostring::runes(manager) {
        if !kubegen_go::unicode::is_print(c) {
            errors.push(FieldError::invalid(
                "fieldManager",
                BadValue::Marshalled(gostring::quote(manager)),
                format!(
                    "invalid character U+{:04X} (at position {offset})",
                    c as u32
                ),
            ));
        }
    }
    errors
}

/// `ValidateDryRun`: every value must be `All`; the error shows the whole list.
fn dry_run_errors(values: &[&str]) -> Vec<FieldError> {
    if values.iter().all(|v| *v == "All") {
        return Vec::new();
    }
    vec![FieldError::not_supported(
        "dryRun",
        BadValue::Json(json!(values)),
        &["All".to_owned()],
    )]
}

/// Delete options from the query, as the apiserver reads them when the request has no body:
/// a `gracePeriodSeconds` that is no integer is a 400.
pub(super) fn delete_from_query(query: &Query) -> Result<Value, ApiError> {
    let mut options = Map::new();
    if let Some(grace) = query.first("gracePeriodSeconds") {
        let seconds: i64 = grace.parse().map_err(|e: std::num::ParseIntError| {
            ApiError::bad_request(parse_int_error(grace, &e))
        })?;
        options.insert("gracePeriodSeconds".into(), json!(seconds));
    }
    if let Some(orphan) = query.go_bool("orphanDependents") {
        options.insert("orphanDependents".into(), json!(orphan));
    }
    if let Some(policy) = query.first("propagationPolicy") {
        options.insert("propagationPolicy".into(), json!(policy));
    }
    let dry_run = query.all("dryRun");
    if !dry_run.is_empty() {
        options.insert("dryRun".into(), json!(dry_run));
    }
    Ok(Value::Object(options))
}

/// `strconv.ParseInt`'s error for `value`.
fn parse_int_error(value: &str, e: &std::num::ParseIntError) -> String {
    let why = match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
            "value out of range"
        }
        _ => "invalid syntax",
    };
    format!(
        "strconv.ParseInt: parsing {}: {why}",
        kubegen_core::go_print::quote(value)
    )
}

/// `ValidateDeleteOptions` on the options a DELETE carries (its body's, or its query's):
/// the 422, and otherwise whether the delete is a dry run.
pub(super) fn check_delete(options: &Value) -> Result<bool, ApiError> {
    let mut errors = Vec::new();
    let policy = options.get("propagationPolicy").filter(|p| !p.is_null());
    if let Some(policy) = policy {
        if options
            .get("orphanDependents")
            .is_some_and(|o| !o.is_null())
        {
            errors.push(FieldError::invalid(
                "propagationPolicy",
                BadValue::Json(policy.clone()),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if !matches!(
            policy.as_str(),
            Some("Foreground" | "Background" | "Orphan")
        ) {
            let supported = ["Foreground", "Background", "Orphan", "nil"].map(String::from);
            errors.push(FieldError::not_supported(
                "propagationPolicy",
                BadValue::Json(policy.clone()),
                &supported,
            ));
        }
    }
    let dry_run: Vec<&str> = options["dryRun"]
        .as_array()
        .map(|values| values.iter().map(|v| v.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    errors.extend(dry_run_errors(&dry_run));
    match errors.is_empty() {
        true => Ok(!dry_run.is_empty()),
        false => Err(ApiError::invalid(
            "meta.k8s.io",
            "DeleteOptions",
            "",
            &errors,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(query: &str, write_: Write) -> String {
        write(&Query::parse(Some(query)), write_, "ua/1")
            .unwrap_err()
            .message
    }

    #[test]
    fn options_errors_are_collected_as_the_apiserver_collects_them() {
        // Observed on kube-apiserver v1.36.2.
        assert_eq!(
            refused("dryRun=All&dryRun=x", Write::Create),
            r#"CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","x"]: supported values: "All""#
        );
        assert_eq!(
            refused("dryRun", Write::Update),
            r#"UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: [""]: supported values: "All""#
        );
        let long = "m".repeat(129);
        assert_eq!(
            refused(
                &format!("fieldManager={long}%0A&dryRun=x&fieldValidation=y"),
                Write::Create
            ),
            format!(
                r#"CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, fieldManager: Invalid value: "{long}\n": invalid character U+000A (at position 129), dryRun: Unsupported value: ["x"]: supported values: "All", fieldValidation: Unsupported value: "y": supported values: "", "Ignore", "Strict", "Warn"]"#
            )
        );
        assert_eq!(
            refused("fieldManager=%C3%A9%E2%80%8Bx", Write::Create),
            r#"CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "é\u200bx": invalid character U+200B (at position 2)"#
        );
        assert_eq!(
            refused("fieldValidation=Strict%00", Write::Create),
            r#"CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Strict\x00": supported values: "", "Ignore", "Strict", "Warn""#
        );
        assert_eq!(
            refused("force=false", Write::Patch { apply: false }),
            r#"PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch"#
        );
        assert_eq!(
            refused("fieldManager=&dryRun=x", Write::Patch { apply: true }),
            r#"PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, dryRun: Unsupported value: ["x"]: supported values: "All"]"#
        );
    }

    #[test]
    fn accepted_options() {
        let q = Query::parse(Some(
            "fieldManager=a+b&fieldValidation=Strict&fieldValidation=x&dryRun=All&dryRun=All&force=x",
        ));
        let o = write(&q, Write::Patch { apply: true }, "ua").unwrap();
        assert_eq!(o.field_manager.as_deref(), Some("a b"));
        assert_eq!(o.field_validation, FieldValidation::Strict);
        assert!(o.dry_run && o.force);
        // An invalid byte is one printable U+FFFD, stored as such.
        let q = Query::parse(Some("fieldManager=%ff"));
        let o = write(&q, Write::Create, "ua").unwrap();
        assert_eq!(o.field_manager.as_deref(), Some("\u{fffd}"));
        let o = write(
            &Query::parse(Some("fieldManager=")),
            Write::Create,
            "kubectl/v1",
        )
        .unwrap();
        assert_eq!(o.field_manager.as_deref(), Some("kubectl"));
    }

    #[test]
    fn delete_options_are_checked() {
        let q = Query::parse(Some("gracePeriodSeconds=x"));
        assert_eq!(
            delete_from_query(&q).unwrap_err().message,
            r#"strconv.ParseInt: parsing "x": invalid syntax"#
        );
        let q = Query::parse(Some("propagationPolicy=x&dryRun=x"));
        assert_eq!(
            check_delete(&delete_from_query(&q).unwrap())
                .unwrap_err()
                .message,
            r#"DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil", dryRun: Unsupported value: ["x"]: supported values: "All"]"#
        );
        let q = Query::parse(Some("propagationPolicy=Orphan&orphanDependents=false"));
        assert_eq!(
            check_delete(&delete_from_query(&q).unwrap())
                .unwrap_err()
                .message,
            r#"DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set"#
        );
        assert_eq!(check_delete(&json!({"dryRun": ["All"]})), Ok(true));
        assert_eq!(check_delete(&json!({})), Ok(false));
    }
}
