//! SubjectAccessReviews, answered as kube-apiserver with `--authorization-mode=RBAC` answers
//! them: the spec validated (`ValidateSubjectAccessReviewSpec`), then the privileged-group
//! authorizer (`system:masters` may do anything), then RBAC over the stored roles and
//! bindings ([`kubegen_runtime::rbac::authorize`]).

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::State;
use crate::status::ApiError;
use kubegen_runtime::rbac::authorize::{Attributes, Policy, Request, authorize};
use kubegen_runtime::validation::{BadValue, FieldError};

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

impl State {
    /// Answers a SubjectAccessReview: `body` with `status.allowed` (and `status.reason` when
    /// there is one).
    pub(crate) fn review_access(&self, mut body: Value) -> Result<Value, ApiError> {
        let spec = &body["spec"];
        let text = |v: &Value, key: &str| v[key].as_str().unwrap_or("").to_owned();
        let resource = spec.get("resourceAttributes").filter(|v| !v.is_null());
        let non_resource = spec.get("nonResourceAttributes").filter(|v| !v.is_null());
        let user = text(spec, "user");
        let groups: Vec<String> = spec["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.as_str().map(str::to_owned))
            .collect();
        let mut errors = Vec::new();
        if let (Some(_), Some(n)) = (resource, non_resource) {
            // Go prints the internal struct, which has no JSON tags.
            let printed = json!({"Path": text(n, "path"), "Verb": text(n, "verb")});
            errors.push(FieldError::invalid(
                "spec.nonResourceAttributes",
                BadValue::Marshalled(format!(
                    "{{\"Path\":{},\"Verb\":{}}}",
                    printed["Path"], printed["Verb"]
                )),
                "cannot be specified in combination with resourceAttributes",
            ));
        }
        if resource.is_none() && non_resource.is_none() {
            errors.push(FieldError::invalid(
                "spec.resourceAttributes",
                BadValue::Json(Value::Null),
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ));
        }
        if user.is_empty() && groups.is_empty() {
            errors.push(FieldError::invalid(
                "spec.user",
                BadValue::str(""),
                "at least one of user or group must be specified",
            ));
        }
        let invalid =
            |errors: &[FieldError]| ApiError::invalid("authorization.k8s.io", "", "", errors);
        if !errors.is_empty() {
            return Err(invalid(&errors));
        }
        let request = match (resource, non_resource) {
            (Some(r), _) => Request::Resource {
                verb: text(r, "verb"),
                group: text(r, "group"),
                resource: text(r, "resource"),
                subresource: text(r, "subresource"),
                name: text(r, "name"),
                namespace: text(r, "namespace"),
            },
            (None, Some(n)) => Request::NonResource {
                verb: text(n, "verb"),
                path: text(n, "path"),
            },
            (None, None) => return Err(invalid(&errors)),
        };
        let status = if groups.iter().any(|g| g == "system:masters") {
            json!({"allowed": true})
        } else {
            let decision = authorize(
                &self.rbac_policy(),
                &Attributes {
                    user: &user,
                    groups: &groups,
                    request: &request,
                },
            );
            match decision.reason.is_empty() {
                true => json!({"allowed": decision.allowed}),
                false => json!({"allowed": decision.allowed, "reason": decision.reason}),
            }
        };
        if let Some(object) = body.as_object_mut() {
            object.entry("metadata").or_insert_with(|| json!({}));
            object.insert("status".into(), status);
        }
        Ok(body)
    }

    /// The stored roles and bindings, in storage order (the apiserver visits its informers'
    /// in no fixed order).
    fn rbac_policy(&self) -> Policy {
        Policy {
            cluster_roles: self.typed(RBAC_GROUP, "clusterroles"),
            cluster_role_bindings: self.typed(RBAC_GROUP, "clusterrolebindings"),
            roles: self.typed(RBAC_GROUP, "roles"),
            role_bindings: self.typed(RBAC_GROUP, "rolebindings"),
        }
    }

    /// The stored objects of a kind that read as `T`; one that does not (validation makes
    /// that impossible) is left out, as a broken object would be by the apiserver's informer.
    fn typed<T: DeserializeOwned>(&self, group: &str, plural: &str) -> Vec<T> {
        self.stored_objects(group, plural, None)
            .iter()
            .filter_map(|o| T::deserialize(o.as_ref()).ok())
            .collect()
    }
}
