//! The merge itself: `mergeMap`, `mergeSlice` and the directives they handle. The patch is
//! mutated where the apiserver mutates its decoded patch (see `apply_leaving_patch`).

use serde_json::{Map, Value};

use super::order::{ElementKind, find_by_key, normalize_element_order, partition};
use super::{
    DELETE_FROM_PRIMITIVE_LIST, PATCH, RETAIN_KEYS, SET_ELEMENT_ORDER, SmpError, bad_arg_type,
    bad_patch_type, meta, no_merge_key,
};
use kubegen_core::go_print;

type Object = Map<String, Value>;

/// `patch` merged into `original`, the map `schema` describes.
pub(super) fn merge_map(
    mut original: Object,
    patch: &mut Object,
    schema: &Value,
) -> Result<Object, SmpError> {
    if let Some(directive) = patch.get(PATCH) {
        return map_directive(directive.clone(), patch);
    }
    retain_keys(&mut original, patch)?;
    set_element_orders(&mut original, patch, schema)?;
    // The apiserver visits the keys in Go's random map order; in sorted order a
    // `$deleteFromPrimitiveList/x` comes before `x`.
    let keys: Vec<String> = patch.keys().cloned().collect();
    for key in keys {
        let Some(mut value) = patch.remove(&key) else {
            continue;
        };
        let merged = merge_field(&mut original, &key, &mut value, schema);
        patch.insert(key, value);
        merged?;
    }
    Ok(original)
}

/// A map's own `$patch`: `replace` makes the patch (less the directive) the value, `delete`
/// an empty map.
fn map_directive(directive: Value, patch: &mut Object) -> Result<Object, SmpError> {
    match directive.as_str() {
        Some("replace") => {
            patch.remove(PATCH);
            Ok(patch.clone())
        }
        Some("delete") => Ok(Object::new()),
        _ => Err(bad_patch_type(&directive, &Value::Object(patch.clone()))),
    }
}

/// One key of the patch merged into `original`.
fn merge_field(
    original: &mut Object,
    key: &str,
    value: &mut Value,
    schema: &Value,
) -> Result<(), SmpError> {
    let delete_list = key.starts_with(DELETE_FROM_PRIMITIVE_LIST);
    let field = match delete_list {
        true => extract_key(key, DELETE_FROM_PRIMITIVE_LIST)?,
        false => key,
    };
    if value.is_null() {
        original.remove(field);
        return Ok(());
    }
    let current = match original.remove(field) {
        Some(current) if go_type(&current) == go_type(value) => current,
        // A new value, or one of another type: the patch's, less its nulls and directives.
        kept => {
            if delete_list {
                if let Some(kept) = kept {
                    original.insert(field.to_owned(), kept);
                }
            } else {
                discard_nulls(value);
                if remove_directives(value) {
                    original.insert(field.to_owned(), value.clone());
                }
            }
            return Ok(());
        }
    };
    let merged = match (current, &mut *value) {
        (Value::Object(current), Value::Object(patch)) => {
            let (schema, meta) = meta::for_struct(schema, field)?;
            match meta.strategy()? {
                "replace" => Value::Object(patch.clone()),
                _ => Value::Object(merge_map(current, patch, schema)?),
            }
        }
        (Value::Array(current), Value::Array(patch)) => {
            let (schema, meta) = meta::for_slice(schema, field)?;
            let strategy = meta.strategy()?;
            Value::Array(merge_list(
                current,
                patch,
                schema,
                strategy,
                meta.merge_key,
                delete_list,
            )?)
        }
        (_, scalar) => scalar.clone(),
    };
    original.insert(field.to_owned(), merged);
    Ok(())
}

/// A list field merged by its strategy (`mergeSliceHandler`): `merge` (and the parallel
/// deletion lists whatever the strategy) merge, anything else replaces.
fn merge_list(
    original: Vec<Value>,
    patch: &mut [Value],
    schema: &Value,
    strategy: &str,
    merge_key: &str,
    delete_list: bool,
) -> Result<Vec<Value>, SmpError> {
    if strategy == "merge" || delete_list {
        merge_slice(original, patch, schema, merge_key, delete_list)
    } else {
        Ok(patch.to_vec())
    }
}

/// `mergeSlice`: lists of scalars as sets (or the deletions of a
/// `$deleteFromPrimitiveList/`), lists of maps by merge key.
fn merge_slice(
    original: Vec<Value>,
    patch: &mut [Value],
    schema: &Value,
    merge_key: &str,
    delete_list: bool,
) -> Result<Vec<Value>, SmpError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = element_kind(&[&original, patch])?;
    if kind == ElementKind::Scalar {
        if delete_list {
            return Ok(original
                .into_iter()
                .filter(|v| !patch.contains(v))
                .collect());
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        let merged = deduplicate_scalars(both);
        let (named, others) = partition(merged, patch, "")?;
        return normalize_element_order(named, others, patch, &original, "", kind);
    }
    if merge_key.is_empty() {
        return Err(SmpError::Internal(format!(
            "cannot merge lists without merge key for {}",
            meta::go_kind(schema)
        )));
    }
    let (original, plain) = special_elements(original, patch, merge_key)?;
    let mut merged = original.clone();
    for &i in &plain {
        let Some(value) = patch[i].get(merge_key).cloned() else {
            return Err(no_merge_key(&patch[i], merge_key));
        };
        match (find_by_key(&merged, merge_key, &value)?, &mut patch[i]) {
            (Some(at), Value::Object(item)) => {
                let current = match std::mem::take(&mut merged[at]) {
                    Value::Object(current) => current,
                    // find_by_key matches maps only.
                    _ => Object::new(),
                };
                merged[at] = Value::Object(merge_map(current, item, schema)?);
            }
            (_, item) => merged.push(item.clone()),
        }
    }
    let patch_order: Vec<Value> = plain.iter().map(|&i| patch[i].clone()).collect();
    let (named, others) = partition(merged, &patch_order, merge_key)?;
    normalize_element_order(named, others, &patch_order, &original, merge_key, kind)
}

/// The list items carrying `$patch` (`mergeSliceWithSpecialElements`): `delete` removes
/// the object's items with that key, `replace` makes the patch's other items the list.
/// Returns the list to merge into and the positions in `patch` of the items to merge.
fn special_elements(
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<usize>), SmpError> {
    let mut plain = Vec::new();
    let mut replace = false;
    for (i, item) in patch.iter().enumerate() {
        let Some(directive) = item.get(PATCH) else {
            plain.push(i);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let Some(value) = item.get(merge_key) else {
                    return Err(no_merge_key(item, merge_key));
                };
                while let Some(at) = find_by_key(&original, merge_key, value)? {
                    original.remove(at);
                }
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(SmpError::Internal(
                    "merging lists cannot yet be specified in the patch".into(),
                ));
            }
            _ => return Err(bad_patch_type(directive, item)),
        }
    }
    if replace {
        let replaced = plain.iter().map(|&i| patch[i].clone()).collect();
        return Ok((replaced, Vec::new()));
    }
    Ok((original, plain))
}

/// `$retainKeys`: the object's keys not listed are cleared; the patch may set only listed
/// keys.
fn retain_keys(original: &mut Object, patch: &mut Object) -> Result<(), SmpError> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let bad = || SmpError::BadRequest("invalid patch format of retainKeys".into());
    let Value::Array(retain) = retain else {
        return Err(bad());
    };
    let listed = |key: &str| retain.iter().any(|k| k.as_str() == Some(key));
    for (key, value) in patch.iter() {
        let directive =
            key.starts_with(DELETE_FROM_PRIMITIVE_LIST) || key.starts_with(SET_ELEMENT_ORDER);
        if !value.is_null() && !directive && !listed(key) {
            return Err(bad());
        }
    }
    original.retain(|key, _| listed(key));
    Ok(())
}

/// `mergePatchIntoOriginal`: every `$setElementOrder/<list>` merges `<list>` (when the patch
/// has it) and orders the result, the listed items in the directive's order.
fn set_element_orders(
    original: &mut Object,
    patch: &mut Object,
    schema: &Value,
) -> Result<(), SmpError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for key in keys {
        let Some(order) = patch.remove(&key) else {
            continue;
        };
        let Value::Array(order) = order else {
            return Err(bad_arg_type("[]interface {}", &order));
        };
        let field = extract_key(&key, SET_ELEMENT_ORDER)?;
        let original_list = list_at(original, field)?;
        let patch_list = list_at(patch, field)?;
        let (item_schema, meta) = meta::for_slice(schema, field)?;
        let strategy = meta.strategy()?;
        let merge_key = meta.merge_key;
        validate_order(patch_list.as_deref().unwrap_or_default(), &order, merge_key)?;
        let merged = match (&original_list, patch_list) {
            (None, None) => continue,
            (Some(original_list), None) => original_list.clone(),
            (None, Some(mut patch_list)) => {
                patch_list.retain_mut(remove_directives);
                patch_list
            }
            (Some(original_list), Some(mut patch_list)) => merge_list(
                original_list.clone(),
                &mut patch_list,
                item_schema,
                strategy,
                merge_key,
                false,
            )?,
        };
        let (named, others) = partition(merged, &order, merge_key)?;
        let original_list = original_list.unwrap_or_default();
        let patch_list = list_at(patch, field)?.unwrap_or_default();
        let kind = element_kind(&[&original_list, &patch_list])?;
        let ordered =
            normalize_element_order(named, others, &order, &original_list, merge_key, kind)?;
        original.insert(field.to_owned(), Value::Array(ordered));
        patch.remove(field);
    }
    Ok(())
}

/// The list at `key` of `map`, if any; another value there is an error.
fn list_at(map: &Object, key: &str) -> Result<Option<Vec<Value>>, SmpError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items.clone())),
        Some(other) => Err(bad_arg_type("[]interface {}", other)),
    }
}

/// `validatePatchWithSetOrderList`: the patch's items (deletions and directives aside)
/// appear in `$setElementOrder` in the same relative order.
fn validate_order(patch: &[Value], order: &[Value], merge_key: &str) -> Result<(), SmpError> {
    if patch.is_empty() || order.is_empty() {
        return Ok(());
    }
    let mut items = Vec::new();
    for item in patch {
        if !merge_key.is_empty() {
            let Value::Object(map) = item else {
                return Err(bad_arg_type("map[string]interface {}", item));
            };
            if map.get(PATCH).and_then(Value::as_str) == Some("delete") {
                continue;
            }
        }
        items.push(item);
    }
    let (mut p, mut o) = (0, 0);
    while p < items.len() && o < order.len() {
        if items[p].get(PATCH).is_some() {
            p += 1;
            continue;
        }
        if merge_key_equal(items[p], &order[o], merge_key)? {
            p += 1;
        }
        o += 1;
    }
    if p < items.len() && o >= order.len() {
        return Err(SmpError::Internal(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
            go_print::print(&Value::Array(patch.to_vec())),
            go_print::print(&Value::Array(order.to_vec())),
        )));
    }
    Ok(())
}

fn merge_key_equal(left: &Value, right: &Value, merge_key: &str) -> Result<bool, SmpError> {
    if merge_key.is_empty() {
        return Ok(left == right);
    }
    let key_of = |v: &Value| -> Result<Value, SmpError> {
        let Value::Object(map) = v else {
            return Err(bad_arg_type("map[string]interface {}", v));
        };
        map.get(merge_key)
            .cloned()
            .ok_or_else(|| no_merge_key(v, merge_key))
    };
    let left = key_of(left)?;
    Ok(left == key_of(right)?)
}

/// The list name after a directive's prefix (`$setElementOrder/containers` → `containers`).
fn extract_key<'a>(key: &'a str, prefix: &str) -> Result<&'a str, SmpError> {
    match key.split_once('/') {
        Some((head, rest)) if head == prefix => Ok(rest),
        _ => Err(SmpError::BadRequest(
            match prefix {
                DELETE_FROM_PRIMITIVE_LIST => "invalid patch format of primitive list",
                _ => "invalid patch format of setElementOrder list",
            }
            .into(),
        )),
    }
}

/// The type Go's unstructured JSON gives a value, as `reflect.TypeOf` tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoType {
    Nil,
    Bool,
    Int,
    Float,
    String,
    Slice,
    Map,
}

fn go_type(value: &Value) -> GoType {
    match value {
        Value::Null => GoType::Nil,
        Value::Bool(_) => GoType::Bool,
        Value::Number(n) => match go_print::go_number(n) {
            go_print::GoNumber::Int(_) => GoType::Int,
            go_print::GoNumber::Float(_) => GoType::Float,
        },
        Value::String(_) => GoType::String,
        Value::Array(_) => GoType::Slice,
        Value::Object(_) => GoType::Map,
    }
}

/// `sliceElementType`: every item of the lists is of one type, and not a list.
fn element_kind(lists: &[&[Value]]) -> Result<ElementKind, SmpError> {
    let mut first = None;
    for item in lists.iter().flat_map(|l| l.iter()) {
        let t = go_type(item);
        match first {
            None if t == GoType::Nil => {
                return Err(SmpError::Panic(
                    "reflect: call of reflect.Type.Kind on nil Type".into(),
                ));
            }
            None if t == GoType::Slice => {
                return Err(SmpError::Unprocessable(
                    "lists of lists are not supported".into(),
                ));
            }
            None => first = Some(t),
            Some(f) if f != t => {
                let lists = lists.iter().map(|l| Value::Array(l.to_vec())).collect();
                return Err(SmpError::Internal(format!(
                    "list element types are not identical: {}",
                    go_print::print(&Value::Array(lists))
                )));
            }
            Some(_) => {}
        }
    }
    match first {
        Some(GoType::Map) => Ok(ElementKind::Map),
        Some(_) => Ok(ElementKind::Scalar),
        None => Err(SmpError::Internal(
            "no elements in any of the given slices".into(),
        )),
    }
}

/// `deduplicateScalars`: a later duplicate is replaced by the last item (so the order
/// changes), as the apiserver does.
fn deduplicate_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut i = 0;
    while i + 1 < s.len() {
        let mut j = i + 1;
        while j < s.len() {
            if s[i] == s[j] {
                let last = s.len() - 1;
                s.swap(j, last);
                s.truncate(last);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    s
}

/// Nulls dropped from the members of maps, at every depth (not from lists).
fn discard_nulls(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.retain(|_, v| !v.is_null());
            members.values_mut().for_each(discard_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// `removeDirectives`: maps carrying `$patch` dropped, at every depth; false when `value`
/// itself is one.
fn remove_directives(value: &mut Value) -> bool {
    match value {
        Value::Object(members) => {
            if members.contains_key(PATCH) {
                return false;
            }
            members.retain(|_, v| remove_directives(v));
            true
        }
        Value::Array(items) => {
            items.retain_mut(remove_directives);
            true
        }
        _ => true,
    }
}
