/* Ein Programm mit Umlauten: die Kopfdatei heißt größe.h, und dieser Kommentar erklärt,
 * daß jede Änderung nach einer Zeile mit Umlauten an der richtigen Stelle landen muß. */
#include "größe.h"

int nondet_int(void);

void klein(void) {}
void gross(void) {}
void pruefe(const char *was) { (void)was; }

int main(void)
{
    int n = nondet_int(); /* Länge der Eingabe */
    if (n < GROESSE)
        klein();
    else
        gross();
    pruefe("Größe geprüft");
    return 0;
}
