//! The order of a merged list (`normalizeElementOrder`): the items the patch names in the
//! patch's order (or `$setElementOrder`'s), the items only the object had in the object's
//! order, the two interleaved where the object's order relates them. The sorts are Go's
//! `sort.SliceStable` step for step, since the apiserver's "less" is not a strict order when
//! an item is missing from the list giving the order.

use serde_json::Value;

use super::{SmpError, bad_arg_type, no_merge_key};

/// Whether a list holds maps (merged by key) or scalars (merged as a set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ElementKind {
    Map,
    Scalar,
}

/// The merged list: `patch_items` ordered by `patch_order`, `server_only` by
/// `server_order`, then merged.
pub(super) fn normalize_element_order(
    patch_items: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: ElementKind,
) -> Result<Vec<Value>, SmpError> {
    let patch_items = normalize_slice_order(patch_items, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted_slice(
        server_only,
        patch_items,
        server_order,
        merge_key,
        kind,
    ))
}

/// `to_sort` stably sorted by the positions of its items in `order`; items deleting
/// themselves (`$patch: delete`) last.
fn normalize_slice_order(
    mut to_sort: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: ElementKind,
) -> Result<Vec<Value>, SmpError> {
    let mut to_delete = Vec::new();
    if kind == ElementKind::Map {
        for item in to_sort.iter().chain(order) {
            let Value::Object(map) = item else {
                return Err(bad_arg_type("map[string]interface {}", item));
            };
            if !map.contains_key(merge_key) {
                return Err(no_merge_key(item, merge_key));
            }
        }
        let (keep, delete): (Vec<Value>, Vec<Value>) = to_sort
            .into_iter()
            .partition(|item| item.get(super::PATCH).and_then(Value::as_str) != Some("delete"));
        to_sort = keep;
        to_delete = delete;
    }
    let less = |a: &Value, b: &Value| match (
        index(order, a, merge_key, kind),
        index(order, b, merge_key, kind),
    ) {
        (Some(i), Some(j)) => i < j,
        _ => true,
    };
    stable_sort(&mut to_sort, less);
    to_sort.extend(to_delete);
    Ok(to_sort)
}

/// `left` (the object's items) inserted into `right` (the patch's): before the first item
/// of `right` it precedes in `server_order`, keeping both relative orders.
fn merge_sorted_slice(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: ElementKind,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    while let (Some(l), Some(r)) = (left.peek(), right.peek()) {
        let before = match (
            index(server_order, l, merge_key, kind),
            index(server_order, r, merge_key, kind),
        ) {
            (Some(i), Some(j)) => i < j,
            _ => false,
        };
        let next = if before { left.next() } else { right.next() };
        out.extend(next);
    }
    out.extend(left);
    out.extend(right);
    out
}

/// The position of `item` in `list`: by merge key value for maps (an item without one
/// matches the first without one), by value for scalars.
fn index(list: &[Value], item: &Value, merge_key: &str, kind: ElementKind) -> Option<usize> {
    let key_of = |v: &'_ Value| -> Option<Value> {
        match kind {
            ElementKind::Map => v.as_object().and_then(|m| m.get(merge_key)).cloned(),
            ElementKind::Scalar => Some(v.clone()),
        }
    };
    let wanted = key_of(item);
    list.iter().position(|v| key_of(v) == wanted)
}

/// Go's `sort.SliceStable`: insertion sorts of blocks of 20, then in-place symmetric
/// merges, with the same comparisons and swaps (its result matters when `less` is not a
/// strict weak order).
fn stable_sort(data: &mut [Value], less: impl Fn(&Value, &Value) -> bool) {
    let n = data.len();
    let mut block = 20;
    let (mut a, mut b) = (0, block);
    while b <= n {
        insertion_sort(data, a, b, &less);
        a = b;
        b += block;
    }
    insertion_sort(data, a, n, &less);
    while block < n {
        let (mut a, mut b) = (0, 2 * block);
        while b <= n {
            sym_merge(data, a, a + block, b, &less);
            a = b;
            b += 2 * block;
        }
        let m = a + block;
        if m < n {
            sym_merge(data, a, m, n, &less);
        }
        block *= 2;
    }
}

fn insertion_sort(data: &mut [Value], a: usize, b: usize, less: &impl Fn(&Value, &Value) -> bool) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && less(&data[j], &data[j - 1]) {
            data.swap(j, j - 1);
            j -= 1;
        }
    }
}

fn sym_merge(
    data: &mut [Value],
    a: usize,
    m: usize,
    b: usize,
    less: &impl Fn(&Value, &Value) -> bool,
) {
    if m - a == 1 {
        let (mut i, mut j) = (m, b);
        while i < j {
            let h = (i + j) / 2;
            if less(&data[h], &data[a]) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        for k in a..i.saturating_sub(1) {
            data.swap(k, k + 1);
        }
        return;
    }
    if b - m == 1 {
        let (mut i, mut j) = (a, m);
        while i < j {
            let h = (i + j) / 2;
            if !less(&data[m], &data[h]) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        for k in (i + 1..=m).rev() {
            data.swap(k, k - 1);
        }
        return;
    }
    let mid = (a + b) / 2;
    let n = mid + m;
    let (mut start, mut r) = if m > mid { (n - b, mid) } else { (a, m) };
    let p = n - 1;
    while start < r {
        let c = (start + r) / 2;
        if !less(&data[p - c], &data[c]) {
            start = c + 1;
        } else {
            r = c;
        }
    }
    let end = n - start;
    if start < m && m < end {
        rotate(data, start, m, end);
    }
    if a < start && start < mid {
        sym_merge(data, a, start, mid, less);
    }
    if mid < end && end < b {
        sym_merge(data, mid, end, b, less);
    }
}

/// Go's block rotation of `data[a..b]` around `m`, by swaps of ranges.
fn rotate(data: &mut [Value], a: usize, m: usize, b: usize) {
    let (mut i, mut j) = (m - a, b - m);
    while i != j {
        if i > j {
            swap_range(data, m - i, m, j);
            i -= j;
        } else {
            swap_range(data, m - i, m + j - i, i);
            j -= i;
        }
    }
    swap_range(data, m - i, m, i);
}

fn swap_range(data: &mut [Value], a: usize, b: usize, n: usize) {
    for i in 0..n {
        data.swap(a + i, b + i);
    }
}

/// The items of `merged` the list `by` names (by merge key, or by value for scalars), and
/// the others.
pub(super) fn partition(
    merged: Vec<Value>,
    by: &[Value],
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let mut named = Vec::new();
    let mut others = Vec::new();
    for item in merged {
        let present = if merge_key.is_empty() {
            by.contains(&item)
        } else {
            let Value::Object(map) = &item else {
                return Err(bad_arg_type("map[string]interface {}", &item));
            };
            let Some(value) = map.get(merge_key) else {
                return Err(no_merge_key(&item, merge_key));
            };
            find_by_key(by, merge_key, value)?.is_some()
        };
        if present {
            named.push(item);
        } else {
            others.push(item);
        }
    }
    Ok((named, others))
}

/// The position of the first map in `list` whose `key` is `value`
/// (`findMapInSliceBasedOnKeyValue`); an item that is not a map is an error.
pub(super) fn find_by_key(
    list: &[Value],
    key: &str,
    value: &Value,
) -> Result<Option<usize>, SmpError> {
    for (i, item) in list.iter().enumerate() {
        let Value::Object(map) = item else {
            return Err(SmpError::Internal(format!(
                "value for key {i} is not a map"
            )));
        };
        if map.get(key) == Some(value) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sorted(items: &[i64], less: impl Fn(i64, i64) -> bool) -> Vec<i64> {
        let mut values: Vec<Value> = items.iter().map(|i| json!(i)).collect();
        stable_sort(&mut values, |a, b| {
            less(a.as_i64().unwrap(), b.as_i64().unwrap())
        });
        values.iter().map(|v| v.as_i64().unwrap()).collect()
    }

    #[test]
    fn the_stable_sort_sorts_stably_past_one_block() {
        let items: Vec<i64> = (0..97).map(|i| (i * 37) % 11 * 100 + i).collect();
        let mut want = items.clone();
        want.sort_by_key(|v| v / 100);
        assert_eq!(sorted(&items, |a, b| a / 100 < b / 100), want);
    }

    #[test]
    fn an_item_missing_from_the_order_moves_as_go_moves_it() {
        // `less` is true whenever one side is missing (-1): Go's insertion sort moves
        // such an item to the front, past everything before it.
        let less = |a: i64, b: i64| a < 0 || b < 0 || a < b;
        assert_eq!(sorted(&[1, 2, -1, 3], less), [-1, 1, 2, 3]);
        assert_eq!(sorted(&[1, -1, -2, 3], less), [-2, -1, 1, 3]);
    }
}
