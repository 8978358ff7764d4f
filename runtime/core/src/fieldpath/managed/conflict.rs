//! Apply conflicts: fields an apply would change that another manager owns.

use std::fmt;

use serde_json::{Value, json};

use super::entries::ManagerId;
use crate::fieldpath::Path;

/// One field another manager owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The owner's identifier ([`ManagerId::identifier`]).
    pub manager: String,
    /// The field.
    pub path: Path,
}

/// Every conflict of one apply.
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct Conflicts(pub Vec<Conflict>);

impl Conflicts {
    /// The `Status` message: `Apply failed with 1 conflict: conflict with "alice": .spec.x`,
    /// or one block per manager (sorted) listing its fields.
    pub fn message(&self) -> String {
        if let [one] = self.0.as_slice() {
            return format!(
                "Apply failed with 1 conflict: conflict with {}: {}",
                ManagerId::describe(&one.manager),
                one.path
            );
        }
        let mut managers: Vec<&str> = self.0.iter().map(|c| c.manager.as_str()).collect();
        managers.sort_unstable();
        managers.dedup();
        let mut lines = Vec::new();
        for manager in managers {
            lines.push(format!("conflicts with {}:", ManagerId::describe(manager)));
            for c in self.0.iter().filter(|c| c.manager == manager) {
                lines.push(format!("- {}", c.path));
            }
        }
        format!(
            "Apply failed with {} conflicts: {}",
            self.0.len(),
            lines.join("\n")
        )
    }

    /// The `Status` causes: one `FieldManagerConflict` per field.
    pub fn causes(&self) -> Vec<Value> {
        self.0
            .iter()
            .map(|c| {
                json!({
                    "reason": "FieldManagerConflict",
                    "message": format!("conflict with {}", ManagerId::describe(&c.manager)),
                    "field": c.path.to_string(),
                })
            })
            .collect()
    }

    /// The 409 `Status` the apiserver answers with.
    pub fn to_status(&self) -> Value {
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message(),
            "reason": "Conflict",
            "details": {"causes": self.causes()},
            "code": 409,
        })
    }
}

impl fmt::Display for Conflicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}
