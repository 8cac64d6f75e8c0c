//! Reading CBMC's `--json-ui` output: the status of each property and, for a failed one,
//! the assignments of its trace. The human-readable output is never parsed.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::error::CbmcRunError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The assertion holds on every path within the bounds (or is unreachable).
    Holds,
    /// Some path within the bounds violates the assertion.
    Fails,
}

/// Where CBMC says a property is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    pub file: String,
    pub line: u32,
    pub function: String,
}

#[derive(Clone, Debug)]
pub(crate) struct PropertyResult {
    pub description: String,
    /// CBMC's id, e.g. `main.unwind.0`; empty if CBMC gave none.
    pub id: String,
    pub location: Option<Location>,
    pub status: Status,
    /// For a failed property: every assignment of its trace, in order, as
    /// `(lhs, value)`.
    pub assignments: Vec<(String, u64)>,
    /// For a failed property: where each step of its trace is, in order (steps without a
    /// location left out).
    pub steps: Vec<Location>,
    /// For a failed property: its calls, returns and assignments in order, with where they
    /// happen: enough to follow a value back to the line that read it.
    pub flow: Vec<FlowStep>,
    /// For a failed property: the C type (and an array's elements) of the value of each
    /// assignment of `flow` that holds an integer, a floating-point number or an array of
    /// them, by its index in `flow`: what an input looked like to the program.
    pub shapes: HashMap<usize, Shape>,
}

/// The C type of an assignment's value, as CBMC names it, and for an array its elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// A scalar's type (`signed int`, `char`, `double`), or an array's elements' type.
    pub ty: String,
    /// An array's elements' bits, in index order; `None` for a scalar.
    pub elements: Option<Vec<u64>>,
}

/// One call, return or assignment of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlowStep {
    /// A call of `callee`; `at` is the call site.
    Call {
        callee: String,
        at: Option<Location>,
    },
    /// The innermost open call returned.
    Return,
    /// `lhs` was assigned `value` (`None` for a value that is no integer).
    Assign {
        lhs: String,
        value: Option<u64>,
        at: Option<Location>,
    },
}

impl PropertyResult {
    /// The value last assigned to `lhs` in the trace.
    pub fn last_value(&self, lhs: &str) -> Option<u64> {
        self.assignments
            .iter()
            .rev()
            .find(|(l, _)| l == lhs)
            .map(|&(_, v)| v)
    }

    /// The value last assigned to `array[i]`, if the trace assigns it.
    pub fn last_value_of_element(&self, array: &str, i: usize) -> Option<u64> {
        self.assignments
            .iter()
            .rev()
            .find(|(lhs, _)| array_index(lhs, array) == Some(i))
            .map(|&(_, v)| v)
    }

    /// The values last assigned to `array[0..len]`, 0 for an element the trace does not
    /// assign (a formula slice drops values no property depends on: any value does).
    pub fn last_array_or_zero(&self, array: &str, len: usize) -> Vec<u64> {
        let mut values = vec![0; len];
        for (lhs, value) in &self.assignments {
            if let Some(i) = array_index(lhs, array).filter(|&i| i < len) {
                values[i] = *value;
            }
        }
        values
    }

    /// The values last assigned to `array[0..len]`.
    pub fn last_array(&self, array: &str, len: usize) -> Option<Vec<u64>> {
        let mut values = vec![None; len];
        for (lhs, value) in &self.assignments {
            if let Some(i) = array_index(lhs, array).filter(|&i| i < len) {
                values[i] = Some(*value);
            }
        }
        values.into_iter().collect()
    }
}

/// The index of `array[<i>]` as CBMC writes it, with or without a C suffix (`3l`, `3ul`).
fn array_index(lhs: &str, array: &str) -> Option<usize> {
    let inner = lhs
        .strip_prefix(array)?
        .strip_prefix('[')?
        .strip_suffix(']')?;
    inner
        .trim_end_matches(|c: char| c.eq_ignore_ascii_case(&'l') || c.eq_ignore_ascii_case(&'u'))
        .parse()
        .ok()
}

/// What one CBMC run reported.
#[derive(Debug)]
pub(crate) struct Report {
    pub properties: Vec<PropertyResult>,
    /// Messages of type ERROR, in order.
    pub errors: Vec<String>,
}

impl Report {
    /// The result of the one property with this description.
    pub fn property(&self, description: &str) -> Result<&PropertyResult, CbmcRunError> {
        let mut found = self
            .properties
            .iter()
            .filter(|p| p.description == description);
        match (found.next(), found.next()) {
            (Some(p), None) => Ok(p),
            (None, _) => Err(CbmcRunError::Json {
                reason: format!("property \"{description}\" is missing from the results"),
            }),
            (Some(_), Some(_)) => Err(CbmcRunError::Json {
                reason: format!("property \"{description}\" is reported twice"),
            }),
        }
    }
}

#[derive(Deserialize)]
struct RawProperty {
    description: String,
    status: String,
    /// CBMC's id of the property, e.g. `main.unwind.0` for an unwinding assertion.
    #[serde(default)]
    property: String,
    #[serde(rename = "sourceLocation")]
    source_location: Option<RawLocation>,
    #[serde(default)]
    trace: Vec<RawStep>,
}

#[derive(Deserialize)]
struct RawLocation {
    #[serde(default)]
    file: String,
    #[serde(default)]
    function: String,
    /// A string in CBMC's output.
    line: Option<Value>,
}

#[derive(Deserialize)]
struct RawStep {
    #[serde(rename = "stepType", default)]
    step_type: String,
    lhs: Option<String>,
    value: Option<RawValue>,
    #[serde(rename = "sourceLocation")]
    source_location: Option<RawLocation>,
    /// The callee of a `function-call` step.
    function: Option<RawFunction>,
}

#[derive(Deserialize)]
struct RawFunction {
    #[serde(default)]
    identifier: String,
}

/// Arrays and structs carry `elements` or `members` instead of bits; their `data` is not
/// necessarily a string, hence the untyped fields.
#[derive(Deserialize)]
struct RawValue {
    binary: Option<Value>,
    data: Option<Value>,
    #[serde(rename = "type")]
    ty: Option<String>,
    elements: Option<Vec<RawElement>>,
}

#[derive(Deserialize)]
struct RawElement {
    index: Option<u64>,
    value: Option<RawValue>,
}

impl RawValue {
    /// The value's C type and, for an array of scalars indexed from 0 without gaps, its
    /// elements; `None` for a value without bits (a pointer, a struct).
    fn shape(&self) -> Option<Shape> {
        match &self.elements {
            None => Some(Shape {
                ty: self.ty.clone()?,
                elements: None,
            })
            .filter(|_| self.binary.is_some()),
            Some(elements) => {
                let mut ty = None;
                let mut bits = Vec::with_capacity(elements.len());
                for (k, e) in elements.iter().enumerate() {
                    let value = e.value.as_ref()?;
                    if e.index.is_some_and(|i| i != k as u64) || value.elements.is_some() {
                        return None;
                    }
                    ty = ty.or(value.ty.clone());
                    bits.push(value.as_u64()?);
                }
                Some(Shape {
                    ty: ty?,
                    elements: Some(bits),
                })
            }
        }
    }

    /// The value as an unsigned number: from its bits when CBMC gives them, else from its
    /// C literal (`5u`). Values that are not integers (structs, pointers) give `None`.
    fn as_u64(&self) -> Option<u64> {
        let bits = self.binary.as_ref().and_then(Value::as_str);
        if let Some(bits) = bits.filter(|b| !b.is_empty() && b.len() <= 64) {
            return u64::from_str_radix(bits, 2).ok();
        }
        self.data
            .as_ref()
            .and_then(Value::as_str)?
            .trim_end_matches(|c: char| {
                c.eq_ignore_ascii_case(&'l') || c.eq_ignore_ascii_case(&'u')
            })
            .parse()
            .ok()
    }
}

/// CBMC's `--json-ui` output made valid JSON: CBMC writes the bytes of names as they are,
/// so a file name with a control character (ESC, a newline) puts that byte raw inside a
/// string, which JSON forbids; each such byte becomes its `\u00XX` escape.
pub(crate) fn controls_escaped(stdout: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    // Whitespace between values may be a control byte too: only those in a string change.
    if !stdout.iter().any(|&b| b < 0x20) {
        return stdout.into();
    }
    let mut out = Vec::with_capacity(stdout.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for &b in stdout {
        if in_string && b < 0x20 {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
            escaped = false;
            continue;
        }
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
        } else {
            in_string = b == b'"';
        }
        out.push(b);
    }
    out.into()
}

/// Parses the whole `--json-ui` output of one run.
pub(crate) fn parse(stdout: &[u8]) -> Result<Report, CbmcRunError> {
    let stdout = &*controls_escaped(stdout);
    let messages: Vec<Value> = serde_json::from_slice(stdout).map_err(|e| CbmcRunError::Json {
        reason: format!("{e} (after {} bytes)", stdout.len()),
    })?;
    let mut properties = Vec::new();
    let mut errors = Vec::new();
    for message in messages {
        if let Some(result) = message.get("result") {
            let raw: Vec<RawProperty> =
                serde_json::from_value(result.clone()).map_err(|e| CbmcRunError::Json {
                    reason: format!("result list: {e}"),
                })?;
            for p in raw {
                properties.push(convert(p)?);
            }
        } else if message.get("messageType").and_then(Value::as_str) == Some("ERROR") {
            let text = message
                .get("messageText")
                .and_then(Value::as_str)
                .unwrap_or("");
            errors.push(text.to_string());
        }
    }
    Ok(Report { properties, errors })
}

fn convert(p: RawProperty) -> Result<PropertyResult, CbmcRunError> {
    let status = match p.status.as_str() {
        "SUCCESS" | "UNREACHABLE" => Status::Holds,
        "FAILURE" => Status::Fails,
        other => {
            return Err(CbmcRunError::Json {
                reason: format!("property \"{}\" has status {other}", p.description),
            });
        }
    };
    let mut assignments = Vec::new();
    let mut steps = Vec::new();
    let mut flow = Vec::new();
    let mut shapes = HashMap::new();
    for s in p.trace {
        let at = s.source_location.map(location);
        if let Some(l) = &at {
            steps.push(l.clone());
        }
        match s.step_type.as_str() {
            "assignment" => {
                let Some(lhs) = s.lhs else { continue };
                let value = s.value.as_ref().and_then(RawValue::as_u64);
                if let Some(value) = value {
                    assignments.push((lhs.clone(), value));
                }
                if let Some(shape) = s.value.as_ref().and_then(RawValue::shape) {
                    shapes.insert(flow.len(), shape);
                }
                flow.push(FlowStep::Assign { lhs, value, at });
            }
            "function-call" => flow.push(FlowStep::Call {
                callee: s.function.map(|f| f.identifier).unwrap_or_default(),
                at,
            }),
            "function-return" => flow.push(FlowStep::Return),
            _ => {}
        }
    }
    let location = p.source_location.map(location);
    Ok(PropertyResult {
        description: p.description,
        id: p.property,
        location,
        status,
        assignments,
        steps,
        flow,
        shapes,
    })
}

fn location(l: RawLocation) -> Location {
    Location {
        line: match l.line {
            Some(Value::String(s)) => s.parse().unwrap_or(0),
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0),
            _ => 0,
        },
        file: l.file,
        function: l.function,
    }
}

/// The trace of the failed property with this description, as CBMC wrote it but without
/// the steps CBMC hides and those of the harness (its globals start with `__mergelens_`):
/// `None` if the property did not fail or the output is unreadable.
pub(crate) fn raw_trace(stdout: &[u8], description: &str) -> Option<Value> {
    let messages: Vec<Value> = serde_json::from_slice(&controls_escaped(stdout)).ok()?;
    let property = messages
        .iter()
        .filter_map(|m| m.get("result")?.as_array())
        .flatten()
        .find(|p| p.get("description").and_then(Value::as_str) == Some(description))?;
    if property.get("status").and_then(Value::as_str) != Some("FAILURE") {
        return None;
    }
    let steps = property.get("trace")?.as_array()?;
    let kept: Vec<Value> = steps
        .iter()
        .filter(|s| s.get("hidden").and_then(Value::as_bool) != Some(true))
        .filter(|s| {
            s.get("lhs")
                .and_then(Value::as_str)
                .is_none_or(|l| !l.starts_with("__mergelens_") && !l.starts_with("__CPROVER"))
        })
        .filter(|s| {
            s.get("sourceLocation")
                .and_then(|l| l.get("function"))
                .and_then(Value::as_str)
                .is_none_or(|f| !f.starts_with("__mergelens_") && !f.starts_with("__CPROVER"))
        })
        .filter(|s| {
            matches!(
                s.get("stepType").and_then(Value::as_str),
                Some("assignment" | "input" | "output" | "function-call" | "function-return")
            )
        })
        .cloned()
        .collect();
    Some(Value::Array(kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_statuses_traces_and_errors() {
        let out = br#"[
          {"program": "CBMC 6.6.0 (cbmc-6.6.0)"},
          {"messageText": "oops", "messageType": "ERROR"},
          {"result": [
            {"description": "mergelens word 0", "property": "__mergelens_end.assertion.1",
             "status": "FAILURE", "trace": [
               {"stepType": "assignment", "lhs": "__mergelens_w[1l]",
                "value": {"binary": "00000101", "data": "5u"}},
               {"stepType": "function-call", "function": {"identifier": "f"},
                "sourceLocation": {"file": "p.c", "function": "main", "line": "4"}},
               {"stepType": "function-return"},
               {"stepType": "assignment", "lhs": "__mergelens_accept",
                "value": {"name": "array", "elements": [{"index": 0, "value": {"data": "TRUE"}}]}},
               {"stepType": "assignment", "lhs": "b", "value": {"data": false}},
               {"stepType": "assignment", "lhs": "__mergelens_w[0l]", "value": {"data": "3u"}},
               {"stepType": "assignment", "lhs": "__mergelens_w[1l]", "value": {"data": "2u"}},
               {"stepType": "assignment", "lhs": "__mergelens_wlen", "value": {"data": "2u"}}
             ]},
            {"description": "mergelens word 1", "property": "x", "status": "SUCCESS"}
          ]},
          {"cProverStatus": "failure"}
        ]"#;
        let report = parse(out).unwrap();
        assert_eq!(report.errors, ["oops"]);
        let p = report.property("mergelens word 0").unwrap();
        assert_eq!(p.status, Status::Fails);
        assert_eq!(p.last_value("__mergelens_wlen"), Some(2));
        assert_eq!(p.last_array("__mergelens_w", 2), Some(vec![3, 2]));
        assert_eq!(p.last_array("__mergelens_w", 3), None);
        let call = FlowStep::Call {
            callee: "f".into(),
            at: Some(Location {
                file: "p.c".into(),
                line: 4,
                function: "main".into(),
            }),
        };
        assert_eq!(&p.flow[1..3], &[call, FlowStep::Return]);
        assert!(
            matches!(&p.flow[3], FlowStep::Assign { lhs, value: None, .. } if lhs == "__mergelens_accept")
        );
        assert_eq!(
            report.property("mergelens word 1").unwrap().status,
            Status::Holds
        );
        assert!(report.property("mergelens word 2").is_err());
    }

    #[test]
    fn rejects_truncated_output_and_unknown_statuses() {
        assert!(matches!(
            parse(b"[{\"program\": 1},"),
            Err(CbmcRunError::Json { .. })
        ));
        let odd = br#"[{"result": [{"description": "d", "status": "UNKNOWN"}]}]"#;
        assert!(matches!(parse(odd), Err(CbmcRunError::Json { .. })));
    }

    #[test]
    fn raw_controls_in_names_are_read_as_escapes() {
        let raw = b"[{\"messageText\": \"a\x1b[31m\nb \\\" \x07\"},\n\t{}]";
        let fixed = controls_escaped(raw);
        let v: Vec<Value> = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(v[0]["messageText"], "a\x1b[31m\nb \" \x07");
    }
}
