//! What a run tells its caller while it runs ([`Watcher`]), and its warnings and notes
//! ([`Notice`]).

use crate::cbmc::TeacherStats;

/// A message for the user that does not stop the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Something the user should act on or know is missing (a store that cannot be read).
    Warning(String),
    /// Something that happened (CBMC needed more object bits).
    Note(String),
}

/// What a run tells its caller while it runs. The binary shows it on standard error; a
/// library user may collect or drop it.
pub trait Watcher {
    /// A step begins, e.g. `--unwind 2 --max-word-length 8`.
    fn phase(&self, phase: String);
    /// A callback for the teacher's progress ([`crate::cbmc::CbmcTeacher::on_progress`]).
    fn teacher(&self) -> Box<dyn FnMut(&TeacherStats)>;
    /// Learning is over: what follows is no longer progress.
    fn done(&self);
    fn notice(&self, notice: Notice);
}
