/* Größe eines Puffers: die Länge, die höchstens gelesen wird. */
#define GROESSE 2
void pruefe(const char *was);
