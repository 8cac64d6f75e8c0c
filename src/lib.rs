//! mergelens: see what a git merge does to a C program's behaviour.
//!
//! The library follows the data flow of a review:
//!
//! * [`automaton`]: deterministic finite automata over named letters, their algebra
//!   (products, complement, minimisation, trimming), analyses and file formats;
//! * [`cbmc`]: finding and checking the CBMC bounded model checker;
//! * [`commands`]: the orchestration behind each command of the binary; [`exit`]: its exit codes.
//!
//! The method is Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors* (JAIR 2020): L* learning whose queries a bounded model checker answers.

pub mod automaton;
pub mod cbmc;
pub mod commands;
pub mod config;
pub mod cprog;
pub mod exit;
pub mod git;
pub mod learn;
pub mod limits;
pub mod report;
pub mod review;
pub mod trust;
