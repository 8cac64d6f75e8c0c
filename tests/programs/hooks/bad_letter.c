/* Breaks the hook contract: letter 7 is outside its 3-letter alphabet (main=0 f=1 end=2). */
#include "hooks.h"

int main(void)
{
  __mergelens_event(0);
  __mergelens_event(7);
  __mergelens_end();
  return 0;
}
