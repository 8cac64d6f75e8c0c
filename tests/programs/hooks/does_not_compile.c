/* An instrumented file keeps the user's positions: the error is at src/widget.c:42. */
#include "hooks.h"
#line 40 "src/widget.c"
int widget(void)
{
  return undeclared_variable + 1;
}
