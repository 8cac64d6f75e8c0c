//! What each read of an input stream gave, as the program holds it: [`read_shapes`] finds,
//! in a product trace, the bytes each reader call copied and the C type of the variable it
//! copied them into ([`ReadShape`]), so that a story shows a string as characters and a
//! number as the type the program read rather than as the bytes packed into one integer.
//!
//! A reader (`__mlin_<tag>_<key>(p, n)`) copies with `__ml_copy`, which CBMC shows as one
//! assignment to `byte_extract_little_endian(<variable>, 0, unsigned char [n])` holding the
//! `n` bytes; the variable's type is that of its last assignment before the call (its
//! declaration, which CBMC shows as an assignment of a nondeterministic value).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::super::json::{FlowStep, PropertyResult, Shape};
use super::sites::SiteContext;
use crate::cprog::product::input_reader;

/// The bytes one read gave and the C type of what it filled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadShape {
    /// As CBMC names it: `signed int`, `unsigned char`, `char [4]` (an array's elements'
    /// type and length); `None` where the trace does not say.
    #[serde(default)]
    pub ty: Option<String>,
    /// The bytes copied, in memory order.
    pub bytes: Vec<u8>,
}

/// Every read's shape in `property`'s trace, by version and stream key, read by read;
/// `None` for a read whose copy the trace does not show.
pub(super) fn read_shapes(
    property: &PropertyResult,
    context: &SiteContext,
) -> HashMap<(char, String), Vec<Option<ReadShape>>> {
    let reader_of: HashMap<String, (char, &String)> = context
        .tags
        .iter()
        .flat_map(|&t| {
            context
                .inputs
                .iter()
                .map(move |k| (input_reader(t, k), (t, k)))
        })
        .collect();
    let mut shapes: HashMap<(char, String), Vec<Option<ReadShape>>> = HashMap::new();
    // The flow index of the last assignment to each left-hand side.
    let mut last: HashMap<&str, usize> = HashMap::new();
    let mut depth = 0usize;
    // The open read: its key, its number and the depth its reader runs at.
    let mut open: Option<((char, String), usize, usize)> = None;
    for (i, step) in property.flow.iter().enumerate() {
        match step {
            FlowStep::Call { callee, .. } => {
                depth += 1;
                if let Some(&(t, key)) = reader_of.get(callee.as_str()) {
                    let list = shapes.entry((t, key.clone())).or_default();
                    list.push(None);
                    open = Some(((t, key.clone()), list.len() - 1, depth));
                }
            }
            FlowStep::Return => {
                if open.as_ref().is_some_and(|o| depth <= o.2) {
                    open = None;
                }
                depth = depth.saturating_sub(1);
            }
            FlowStep::Assign { lhs, .. } => {
                if let Some((key, number, _)) = &open
                    && let Some(variable) = copied_into(lhs)
                    && let Some(Shape {
                        elements: Some(bytes),
                        ..
                    }) = property.shapes.get(&i)
                {
                    let ty = last
                        .get(variable)
                        .and_then(|&j| property.shapes.get(&j))
                        .map(type_name);
                    let bytes = bytes.iter().map(|&b| b as u8).collect();
                    if let Some(slot) = shapes.get_mut(key).and_then(|l| l.get_mut(*number)) {
                        *slot = Some(ReadShape { ty, bytes });
                    }
                    open = None;
                }
                last.insert(lhs.as_str(), i);
            }
        }
    }
    shapes
}

/// The variable a copy's bytes went into: `__ml_b0` of
/// `byte_extract_little_endian(__ml_b0, 0ll, unsigned char [3])`.
fn copied_into(lhs: &str) -> Option<&str> {
    let inner = lhs
        .strip_prefix("byte_extract_little_endian(")
        .or_else(|| lhs.strip_prefix("byte_extract_big_endian("))?;
    let variable = inner.split(", ").next()?;
    (!variable.is_empty()).then_some(variable)
}

/// `signed int`, or `char [4]` for an array.
fn type_name(shape: &Shape) -> String {
    match &shape.elements {
        None => shape.ty.clone(),
        Some(e) => format!("{} [{}]", shape.ty, e.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_a_copy_fills_is_read_from_its_byte_extract() {
        assert_eq!(
            copied_into("byte_extract_little_endian(__ml_b0, 0ll, unsigned char [3])"),
            Some("__ml_b0")
        );
        assert_eq!(copied_into("__ml_b0[0ll]"), None);
        let array = Shape {
            ty: "char".into(),
            elements: Some(vec![97, 48, 0, 0]),
        };
        assert_eq!(type_name(&array), "char [4]");
    }
}
