/*
 * mergelens.h: user-defined events for mergelens.
 *
 * Write MERGELENS_EVENT("name"); where an execution should emit the letter `name` in the
 * automata mergelens learns (Chockler et al., "Learning the Language of Software Errors",
 * JAIR 2020, Sec. 3: "Learn(id)" instructions). In a normal build the macro does nothing;
 * mergelens defines it itself while it analyses the program, so this definition only
 * applies when MERGELENS_EVENT is not defined already.
 */
#ifndef MERGELENS_H
#define MERGELENS_H

#ifndef MERGELENS_EVENT
#define MERGELENS_EVENT(name) ((void)0)
#endif

#endif /* MERGELENS_H */
