//! Discovery: the version, group and resource documents clients read to find what the
//! server serves.

use serde_json::{Value, json};

use crate::builtin;
use crate::state::State;
use crate::status::ApiError;
use kubegen_runtime::resource::Scope;

/// A discovery document.
pub(super) enum Discovery {
    Version,
    CoreGroup,
    CoreResources,
    Groups,
    Group(String),
    Resources(String, String),
}

impl Discovery {
    /// The document a path names, if any.
    pub(super) fn of(segments: &[String]) -> Option<Discovery> {
        let s: Vec<&str> = segments.iter().map(String::as_str).collect();
        Some(match s.as_slice() {
            ["version"] => Discovery::Version,
            ["api"] => Discovery::CoreGroup,
            ["api", "v1"] => Discovery::CoreResources,
            ["apis"] => Discovery::Groups,
            ["apis", g] => Discovery::Group((*g).to_owned()),
            ["apis", g, v] => Discovery::Resources((*g).to_owned(), (*v).to_owned()),
            _ => return None,
        })
    }
}

/// The discovery hash of a kind's storage version: the first 8 bytes of the SHA-256 of
/// `group/version/kind`, in base64, as the apiserver computes it.
fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine as _;
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{group}/{version}/{kind}").as_bytes(),
    );
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
}

/// The document, or `None` where the apiserver has no handler (`404 page not found`).
pub(super) fn answer(state: &State, r: &Discovery) -> Result<Option<Value>, ApiError> {
    // The built-in groups in the apiserver's order, then the CRDs' groups.
    let groups = || {
        let mut out: Vec<Value> = builtin::groups().to_vec();
        let mut seen: Vec<&str> = Vec::new();
        for k in state.kinds.iter().filter(|k| k.builtin.is_none()) {
            if seen.contains(&k.group) || builtin::groups().iter().any(|g| g["name"] == k.group) {
                continue;
            }
            seen.push(k.group);
            let mut versions: Vec<&str> = state
                .kinds
                .iter()
                .filter(|o| o.group == k.group)
                .flat_map(|o| o.versions.iter().filter(|v| v.served).map(|v| v.name))
                .collect();
            versions.sort_by_key(|v| std::cmp::Reverse(kubegen_runtime::crd::version_priority(v)));
            versions.dedup();
            let list: Vec<Value> = versions
                .iter()
                .map(|v| json!({"groupVersion": format!("{}/{v}", k.group), "version": v}))
                .collect();
            // A group none of whose versions is served is not listed, as the apiserver's
            // discovery leaves it out.
            if list.is_empty() {
                continue;
            }
            out.push(
                json!({"name": k.group, "versions": list.clone(), "preferredVersion": list[0]}),
            );
        }
        out
    };
    Ok(Some(match r {
        Discovery::Version => {
            json!({"major": "1", "minor": "37", "gitVersion": "v1.37.0-kubegen", "platform": "linux/amd64"})
        }
        Discovery::CoreGroup => {
            json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})
        }
        Discovery::CoreResources => {
            json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": builtin::resource_list("v1").unwrap_or_default()})
        }
        Discovery::Groups => {
            json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups()})
        }
        Discovery::Group(g) => match groups().into_iter().find(|x| x["name"] == g.as_str()) {
            Some(mut group) => {
                group["kind"] = json!("APIGroup");
                group["apiVersion"] = json!("v1");
                group
            }
            None => return Ok(None),
        },
        Discovery::Resources(g, v) => {
            let group_version = format!("{g}/{v}");
            let mut resources = builtin::resource_list(&group_version)
                .unwrap_or_default()
                .to_vec();
            for k in state
                .kinds
                .iter()
                .filter(|k| k.builtin.is_none() && k.group == g.as_str())
            {
                let Some(version) = k.version(v) else {
                    continue;
                };
                let namespaced = k.scope == Scope::Namespaced;
                let mut resource = json!({
                    "name": k.plural, "singularName": k.singular, "namespaced": namespaced, "kind": k.kind,
                    "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
                    "storageVersionHash": storage_version_hash(k.group, k.storage, k.kind),
                });
                if !k.short_names.is_empty() {
                    resource["shortNames"] = json!(k.short_names);
                }
                if !k.categories.is_empty() {
                    resource["categories"] = json!(k.categories);
                }
                resources.push(resource);
                if version.status {
                    resources.push(json!({"name": format!("{}/status", k.plural), "singularName": "", "namespaced": namespaced, "kind": k.kind, "verbs": ["get", "patch", "update"]}));
                }
                if version.scale.is_some() {
                    resources.push(json!({"name": format!("{}/scale", k.plural), "singularName": "", "namespaced": namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}));
                }
            }
            if resources.is_empty() {
                // A built-in group's handler answers for its unknown versions.
                return match builtin::groups().iter().any(|x| x["name"] == g.as_str()) {
                    true => Err(ApiError::resource_not_found()),
                    false => Ok(None),
                };
            }
            json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
        }
    }))
}
