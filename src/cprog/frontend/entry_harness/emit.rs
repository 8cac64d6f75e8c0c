//! The statements of a harness: [`Gen`] declares a nondeterministic value for each
//! parameter (and global) by its [`Ty`], and fixes up every pointer inside it.
//!
//! Key type: [`Gen`]. One writer for the generated harness and the user's skeleton: only
//! the names ([`Gen::prefix`]) and the explicit fills of the shared inputs differ.

use std::collections::HashSet;
use std::fmt::Write as _;

use tree_sitter::Node;

use super::types::{BUFFER, DEPTH};
use super::types::{Scope, Ty, declarator_name};
use crate::cprog::error::HarnessError;
use crate::cprog::frontend::inputs::{INPUT_HOOK, local_key};
use crate::cprog::syntax::{flat_text, named_children};

/// Writes the statements of one harness.
pub(super) struct Gen<'s, 't> {
    pub(super) scope: &'s Scope<'t>,
    /// The entry's name (for errors).
    pub(super) function: String,
    /// Put before every name the harness declares (`__ml_` in the generated harness, none in
    /// the user's file).
    pub(super) prefix: &'static str,
    /// The function whose locals the shared input streams fill, when they are filled
    /// explicitly (the generated harness of the product program).
    pub(super) share: Option<String>,
    pub(super) body: String,
    /// The stubs of the callbacks, defined before the harness function.
    pub(super) stubs: String,
    used: HashSet<String>,
    /// The parameter being built (for errors and names), and its position.
    parameter: String,
    index: usize,
    /// The pointer parameters the entry never lets be NULL (see `contract`).
    pub(super) non_null: Vec<String>,
}

impl<'s, 't> Gen<'s, 't> {
    pub(super) fn new(
        scope: &'s Scope<'t>,
        function: &str,
        prefix: &'static str,
        share: Option<String>,
    ) -> Self {
        Gen {
            scope,
            function: function.to_string(),
            prefix,
            share,
            body: String::new(),
            stubs: String::new(),
            used: HashSet::new(),
            parameter: String::new(),
            index: 0,
            non_null: Vec::new(),
        }
    }

    /// A fresh name from `base`. In the generated harness, the argument `i` is `__ml_a{i}`
    /// and what it points to `__ml_b{i}` (the names the product's reports read as "argument
    /// i+1" and "the buffer of argument i+1"); every other name is `__ml_v_{base}`.
    pub(super) fn name(&mut self, base: &str) -> String {
        let base = if self.prefix.is_empty() {
            base.to_string()
        } else if base == self.parameter {
            format!("a{}", self.index)
        } else if ["_string", "_buffer", "_bytes", "_target"]
            .iter()
            .any(|s| base.strip_suffix(s) == Some(self.parameter.as_str()))
        {
            format!("b{}", self.index)
        } else {
            format!("v_{base}")
        };
        let mut name = format!("{}{base}", self.prefix);
        let mut k = 1;
        // A local named as a type would hide it from the declarations after it.
        while self.scope.declares_type(&name)
            || !self.used.insert(name.clone())
            || name == self.function
        {
            k += 1;
            name = format!("{}{base}{k}", self.prefix);
        }
        name
    }

    /// Reserves a name the harness must not declare (a global it assigns).
    pub(super) fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    /// `    {line}\n` into the body.
    pub(super) fn line(&mut self, line: &str) {
        let _ = writeln!(self.body, "    {line}");
    }

    /// Declares `{spelling} {var}{suffix};` (nondeterministic) and fills it in share mode.
    fn declare(&mut self, spelling: &str, var: &str, suffix: &str) {
        self.line(&format!("{spelling} {var}{suffix}; /* nondeterministic */"));
        self.fill(var);
    }

    /// In share mode, reads `var` from its input stream.
    pub(super) fn fill(&mut self, var: &str) {
        self.fill_sized(var, &format!("sizeof({var})"));
    }

    /// In share mode, reads the first `size` bytes of `var` from its input stream.
    fn fill_sized(&mut self, var: &str, size: &str) {
        if let Some(f) = self.share.clone() {
            self.line(&format!(
                "{INPUT_HOOK}{}(&{var}, {size});",
                local_key(&f, var)
            ));
        }
    }

    /// Declares a string `{spelling} {var}[BUFFER]` (nondeterministic) and fills in share
    /// mode all but its last character, which the harness sets to NUL: a byte read there
    /// would be overwritten before the program could read it, and is no input.
    fn declare_string(&mut self, spelling: &str, var: &str) {
        self.line(&format!(
            "{spelling} {var}[{BUFFER}]; /* nondeterministic */"
        ));
        self.fill_sized(var, &format!("sizeof({var}) - sizeof({var}[0])"));
    }

    fn unsupported(&self, reason: String) -> HarnessError {
        HarnessError::Unsupported {
            function: self.function.clone(),
            parameter: self.parameter.clone(),
            reason,
        }
    }

    /// Names what follows after parameter `i`, `name`.
    pub(super) fn parameter(&mut self, i: usize, name: &str) {
        self.parameter = name.to_string();
        self.index = i;
    }

    /// The argument for the current parameter (see [`Gen::parameter`]), of type `ty`.
    pub(super) fn argument(&mut self, ty: &Ty<'t>) -> Result<String, HarnessError> {
        let name = self.parameter.clone();
        let name = name.as_str();
        match ty {
            Ty::Pointer(to, _) => self.pointer(to, name, 1),
            // A parameter of array or function type is a pointer.
            Ty::Array(of) => self.buffer(of, name).map(|(b, _)| b),
            Ty::Function { .. } => self.pointer(ty, name, 1),
            Ty::Void => Err(self.unsupported("a parameter of type void".into())),
            Ty::Scalar(_) | Ty::Record { .. } => {
                let var = self.name(name);
                self.object(ty, &var, name, 1)?;
                Ok(var)
            }
        }
    }

    /// A buffer of [`BUFFER`] elements of `of` for a pointer with a length beside it, and the
    /// buffer's name; `void` elements are bytes.
    pub(super) fn buffer(
        &mut self,
        of: &Ty<'t>,
        base: &str,
    ) -> Result<(String, usize), HarnessError> {
        self.buffer_at(of, base, 2)
    }

    /// [`Gen::buffer`] for elements whose pointers are built at `depth`.
    fn buffer_at(
        &mut self,
        of: &Ty<'t>,
        base: &str,
        depth: usize,
    ) -> Result<(String, usize), HarnessError> {
        let element = match of {
            Ty::Void => Ty::Scalar("unsigned char".into()),
            other => other.clone(),
        };
        let spelling = element.spelling().ok_or_else(|| {
            self.unsupported("a pointer to an array or a function pointer array".into())
        })?;
        self.complete(&element)?;
        let var = self.name(&format!("{base}_buffer"));
        self.declare(&spelling, &var, &format!("[{BUFFER}]"));
        for k in 0..BUFFER {
            self.fixup(
                &element,
                &format!("{var}[{k}]"),
                &format!("{base}{k}"),
                depth,
            )?;
        }
        Ok((var, BUFFER))
    }

    /// A value for a pointer to `to` at `depth`: a string for a character type (NULL past
    /// [`DEPTH`] + 1), a stub for a function, NULL past [`DEPTH`], else a nondeterministic
    /// object or NULL.
    fn pointer(&mut self, to: &Ty<'t>, base: &str, depth: usize) -> Result<String, HarnessError> {
        if let Ty::Function {
            returns,
            params,
            unit,
        } = to
        {
            return if depth > DEPTH + 2 {
                Ok("0".into())
            } else {
                self.stub(returns, *params, *unit, base, depth)
            };
        }
        // A string one level past the others: it is a leaf, and NULL in its place would
        // make every `strcmp` on it read through NULL, a different made-up byte in each
        // copy of a version (tinyexpr's table of variables: `lookup[i].name`).
        if depth > DEPTH + usize::from(to.is_char()) {
            return Ok("0".into());
        }
        if to.is_char() {
            let var = self.name(&format!("{base}_string"));
            let spelling = to.spelling().unwrap_or_else(|| "char".into());
            self.declare_string(&spelling, &var);
            self.line(&format!("{var}[{}] = 0; /* a string */", BUFFER - 1));
            return Ok(var);
        }
        let address = match to {
            Ty::Void => {
                let var = self.name(&format!("{base}_bytes"));
                self.declare("unsigned char", &var, &format!("[{BUFFER}]"));
                format!("&{var}[0]")
            }
            Ty::Array(_) => return Ok("0".into()),
            _ => {
                self.complete(to)?;
                let var = self.name(&format!("{base}_target"));
                self.object(to, &var, base, depth + 1)?;
                format!("&{var}")
            }
        };
        let null = self.name(&format!("{base}_is_null"));
        self.declare("int", &null, "");
        if depth == 1 && self.non_null.contains(&self.parameter) {
            // The choice is still read (one world: a version whose entry tests the pointer
            // reads it too), and the assumption holds for every version that shares it.
            self.line(&format!(
                "__CPROVER_assume({null} == 0); /* {} dereferences `{}` first: not NULL */",
                self.function, self.parameter
            ));
            // The plain address, not `(null ? 0 : address)`: CBMC's symbolic execution does
            // not carry an assumption into values, so the choice would stay in the pointer,
            // and every function pointer read through it could be any function of its type
            // (each call through `settings->on_url` a dispatch over every stub of every
            // version in the per-execution check).
            return Ok(address);
        }
        Ok(format!("({null} ? 0 : {address})"))
    }

    /// A string or NULL a stub returns: a `static` buffer (alive after the return) that each
    /// call refills from a nondeterministic local, so the shared inputs fill it too.
    fn string_result(&mut self, of: &Ty<'t>, base: &str) -> String {
        let spelling = of.spelling().unwrap_or_else(|| "char".into());
        let kept = self.name(&format!("{base}_string"));
        let fresh = self.name(&format!("{base}_fresh"));
        self.line(&format!("static {spelling} {kept}[{BUFFER}];"));
        self.declare_string(&spelling, &fresh);
        for k in 0..BUFFER - 1 {
            self.line(&format!("{kept}[{k}] = {fresh}[{k}];"));
        }
        self.line(&format!("{kept}[{}] = 0; /* a string */", BUFFER - 1));
        let null = self.name(&format!("{base}_is_null"));
        self.declare("int", &null, "");
        format!("({null} ? 0 : &{kept}[0])")
    }

    /// Refuses a record no unit defines.
    fn complete(&self, ty: &Ty<'t>) -> Result<(), HarnessError> {
        match ty {
            Ty::Record {
                spelling,
                body: None,
            } => Err(HarnessError::Incomplete {
                function: self.function.clone(),
                needed_by: format!("its parameter `{}`", self.parameter),
                ty: spelling.clone(),
                why: "no analysed file defines (an opaque type)".into(),
            }),
            _ => Ok(()),
        }
    }

    /// Declares `var` of type `ty` (nondeterministic) and fixes up its pointers.
    fn object(
        &mut self,
        ty: &Ty<'t>,
        var: &str,
        base: &str,
        depth: usize,
    ) -> Result<(), HarnessError> {
        let spelling = ty
            .spelling()
            .ok_or_else(|| self.unsupported("a type the harness cannot declare".into()))?;
        self.declare(&spelling, var, "");
        self.fixup(ty, var, base, depth)
    }

    /// Gives every pointer inside the value `lvalue` of type `ty` a value of its own (a
    /// record's fields as its parameters, an array of pointers NULL).
    fn fixup(
        &mut self,
        ty: &Ty<'t>,
        lvalue: &str,
        base: &str,
        depth: usize,
    ) -> Result<(), HarnessError> {
        match ty {
            Ty::Pointer(to, _) => {
                let value = self.pointer(to, base, depth)?;
                self.line(&format!("{lvalue} = {value};"));
            }
            // A record of the system headers (`FILE`) is the library's to read: its fields
            // stay as they are.
            Ty::Record {
                body: Some((u, b)), ..
            } if !self.scope.is_system(*u, *b) => {
                if b.parent().is_some_and(|p| p.kind() == "union_specifier") {
                    return self.union_fixup(*u, *b, lvalue, base, depth);
                }
                self.record_fixup(*u, *b, lvalue, base, depth)?;
            }
            Ty::Array(of) if self.scope.holds_pointer(of, DEPTH) => {
                self.line(&format!("__CPROVER_array_set({lvalue}, 0);"));
            }
            _ => {}
        }
        Ok(())
    }

    /// Fixes up a struct's fields; a pointer field beside an integer field named as its
    /// length (`const item *lookup; int lookup_len;`) points to a buffer of [`BUFFER`]
    /// elements and the length is assumed to fit it, as for parameters: a length left free
    /// sends the entry's loops past the one object a pointer field gets.
    fn record_fixup(
        &mut self,
        unit: usize,
        body: Node<'t>,
        lvalue: &str,
        base: &str,
        depth: usize,
    ) -> Result<(), HarnessError> {
        let fields = self.scope.fields(unit, body);
        let pairs = if depth > DEPTH {
            Vec::new()
        } else {
            super::types::pair_lengths(&fields)
        };
        for (i, (field, fty)) in fields.iter().enumerate() {
            let place = format!("{lvalue}.{field}");
            let Some(&(_, l)) = pairs.iter().find(|&&(b, _)| b == i) else {
                self.fixup(fty, &place, &format!("{base}_{field}"), depth)?;
                continue;
            };
            let size = match fty {
                Ty::Pointer(of, _) => {
                    let (buffer, size) =
                        self.buffer_at(of, &format!("{base}_{field}"), depth + 1)?;
                    self.line(&format!("{place} = {buffer};"));
                    size.to_string()
                }
                // An array field is its own buffer: only its elements are fixed up.
                _ => {
                    self.fixup(fty, &place, &format!("{base}_{field}"), depth)?;
                    format!("sizeof({place}) / sizeof({place}[0])")
                }
            };
            let len = format!("{lvalue}.{}", fields[l].0);
            self.line(&format!(
                "__CPROVER_assume({len} >= 0 && {len} <= {size}); /* the length of {place} */"
            ));
        }
        Ok(())
    }

    /// A union holding pointers holds one of the members that do, built as a field would be
    /// (in a local of the member's type, whose value the union takes), the member chosen by
    /// a nondeterministic `int`: building them all in place would let the last overwrite
    /// the others.
    fn union_fixup(
        &mut self,
        unit: usize,
        body: Node<'t>,
        lvalue: &str,
        base: &str,
        depth: usize,
    ) -> Result<(), HarnessError> {
        let mut members = Vec::new();
        for (field, fty) in self.scope.fields(unit, body) {
            if !self.scope.holds_pointer(&fty, DEPTH) {
                continue;
            }
            let Some(spelling) = fty.spelling() else {
                continue;
            };
            let value = self.name(&format!("{base}_{field}_value"));
            self.line(&format!("{spelling} {value};"));
            self.fill(&value);
            self.fixup(&fty, &value, &format!("{base}_{field}"), depth)?;
            members.push((field, value));
        }
        let Some(((last, last_value), others)) = members.split_last() else {
            return Ok(());
        };
        let choice = self.name(&format!("{base}_member"));
        self.declare("int", &choice, "");
        let mut chain = String::new();
        for (k, (field, value)) in others.iter().enumerate() {
            let _ = write!(
                chain,
                "if ({choice} == {k}) {lvalue}.{field} = {value}; else "
            );
        }
        self.line(&format!("{chain}{lvalue}.{last} = {last_value};"));
        Ok(())
    }

    /// A stub for a function pointer: counts its calls and returns a nondeterministic value
    /// (NULL for a pointer, whose target the stub could not keep alive).
    fn stub(
        &mut self,
        returns: &Ty<'t>,
        params: Option<Node<'t>>,
        unit: usize,
        base: &str,
        depth: usize,
    ) -> Result<String, HarnessError> {
        let name = self.name(&format!("stub_{base}"));
        let calls = format!("{name}_calls");
        self.used.insert(calls.clone());
        let parameters = params.map_or_else(
            || "void".to_string(),
            |p| named_parameters(p, self.scope.src(unit)),
        );
        let spelling = returns.spelling().ok_or_else(|| {
            self.unsupported("a callback that returns an array or a function".into())
        })?;
        let mut inner = Gen::new(
            self.scope,
            &self.function,
            self.prefix,
            self.share.as_ref().map(|_| name.clone()),
        );
        inner.used = std::mem::take(&mut self.used);
        inner.parameter = self.parameter.clone();
        inner.index = self.index;
        inner.line(&format!("{calls}++;"));
        match returns {
            Ty::Void => {}
            Ty::Pointer(to, _) if to.is_char() => {
                let string = inner.string_result(to, &format!("{base}_result"));
                inner.line(&format!("return {string};"));
            }
            Ty::Pointer(to, _) if !matches!(**to, Ty::Function { .. }) => inner.line("return 0;"),
            _ => {
                let result = format!("{}result", self.prefix);
                inner.declare(&spelling, &result, "");
                inner.fixup(
                    returns,
                    &result,
                    &format!("{base}_result"),
                    depth.max(DEPTH + 1),
                )?;
                inner.line(&format!("return {result};"));
            }
        }
        self.used = std::mem::take(&mut inner.used);
        self.stubs.push_str(&inner.stubs);
        let _ = write!(
            self.stubs,
            "\n/* Bound to `{base}`: records its calls; returns a nondeterministic value. */\nstatic int {calls};\nstatic {spelling} {name}({parameters})\n{{\n{}}}\n",
            inner.body
        );
        Ok(name)
    }
}

/// A callback's parameter list with every parameter named (`p0`, `p1` where it had none,
/// as a definition needs).
fn named_parameters(list: Node, src: &str) -> String {
    let mut out = Vec::new();
    for (k, p) in named_children(list)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .enumerate()
    {
        let t = flat_text(p, src);
        let named = p.kind() != "parameter_declaration"
            || t == "void"
            || p.child_by_field_name("declarator")
                .and_then(declarator_name)
                .is_some();
        let simple = p
            .child_by_field_name("declarator")
            .is_none_or(|d| d.kind() == "abstract_pointer_declarator");
        out.push(if named || !simple {
            t
        } else {
            format!("{t} p{k}")
        });
    }
    if out.is_empty() {
        "void".into()
    } else {
        out.join(", ")
    }
}
