/* A tiny tokenizer for benches/concrete.md: numbers, words, operators and spaces in a
 * nondeterministic string of four characters. */
char nondet_char(void);
void digit(void) {}
void word(void) {}
void op(void) {}
void space(void) {}
void bad(void) {}
int main(void) {
  char s[5];
  for (int i = 0; i < 4; i++) s[i] = nondet_char();
  s[4] = 0;
  int i = 0;
  while (s[i]) {
    char c = s[i];
    if (c >= '0' && c <= '9') { digit(); while (s[i] >= '0' && s[i] <= '9') i++; }
    else if ((c >= 'a' && c <= 'z')) { word(); while (s[i] >= 'a' && s[i] <= 'z') i++; }
    else if (c == '+' || c == '-') { op(); i++; }
    else if (c == ' ') { space(); i++; }
    else { bad(); i++; }
  }
  return 0;
}
