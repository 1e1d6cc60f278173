//! One labelled request of the detector's corpora (`*.jsonl` here), shared by
//! the corpus tests and `examples/train_credential_model.rs`.

use herald_policy::credential::{AskText, FieldKind, FieldText};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub lang: String,
    pub label: Label,
    pub message: String,
    pub fields: Vec<Field>,
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Ask,
    Benign,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub format: Option<String>,
    pub default: Option<String>,
    #[serde(rename = "enum", default)]
    pub enum_values: Vec<String>,
    #[serde(default)]
    pub enum_labels: Vec<String>,
    pub kind: FieldKind,
}

impl Entry {
    pub fn ask(&self) -> AskText<'_> {
        AskText {
            message: &self.message,
            fields: self
                .fields
                .iter()
                .map(|f| FieldText {
                    name: &f.name,
                    title: f.title.as_deref(),
                    description: f.description.as_deref(),
                    format: f.format.as_deref(),
                    default: f.default.clone(),
                    enum_values: f.enum_values.iter().map(String::as_str).collect(),
                    enum_labels: f.enum_labels.iter().map(String::as_str).collect(),
                    kind: f.kind,
                })
                .collect(),
        }
    }
}

pub fn parse(text: &str) -> Vec<Entry> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("corpus line {}: {e}", i + 1)))
        .collect()
}
