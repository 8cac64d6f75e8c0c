/* A reactive controller for benches/concrete.md: a door that opens, closes, locks and
 * raises an alarm after two wrong codes, driven by nondeterministic commands. */
int nondet_int(void);
int state, tries;
void open_door(void) { state = 1; }
void close_door(void) { state = 0; }
void lock(void) { state = 2; tries = 0; }
void unlock(void) { state = 0; }
void alarm_on(void) { state = 3; }
void reject(void) { tries++; }
static void step(int cmd) {
  switch (state) {
  case 0: if (cmd == 0) open_door(); else if (cmd == 1) lock(); break;
  case 1: if (cmd == 2) close_door(); break;
  case 2: if (cmd == 3) unlock(); else { reject(); if (tries > 1) alarm_on(); } break;
  default: break;
  }
}
int main(void) {
  int n = nondet_int();
  for (int i = 0; i < n; i++) step(nondet_int() & 3);
  return 0;
}
