/* The hook contract of mergelens' instrumented programs; each query's harness defines them. */
void __mergelens_event(unsigned int letter); /* letter: index in the alphabet */
void __mergelens_end(void);                  /* just before the entry function returns */
void __mergelens_exit(void);                 /* just before exit() or abort() */
