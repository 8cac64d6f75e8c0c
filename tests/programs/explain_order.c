/* Writing fails unless the file was opened first: the order of the two calls decides. */
int nondet_int(void);

int opened;

void open_file(void) { opened = 1; }

void write_file(void) { __CPROVER_assert(opened, "written before opened"); }

int main(void) {
  for (int i = 0; i < 3; i++) {
    if (nondet_int())
      open_file();
    else
      write_file();
  }
  return 0;
}
