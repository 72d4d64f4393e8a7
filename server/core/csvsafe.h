/*
 * csvsafe: CSV cells a spreadsheet would not run. A cell that starts with
 * '=', '+', '-', '@', a tab or a carriage return and is not a number is
 * read by Excel, LibreOffice and Google Sheets as a formula
 * (`=cmd|' /C calc'!A0`): karte writes it with a leading apostrophe, which
 * they show as text, and its CSV reader takes that apostrophe off again,
 * so an export imports back to the same runs.
 */
#ifndef KARTE_CSVSAFE_H
#define KARTE_CSVSAFE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the cell s (n bytes) needs the apostrophe: after any apostrophes
 * it starts with one of the characters above and is not a decimal number
 * (-1.5e3 is one). ('=x is risky too: written ''=x, read back as '=x.) */
bool csv_cell_risky(const char *s, size_t n);

/* A cell read from a CSV: s without the apostrophe csv_cell_risky made
 * karte write in front of it (s itself otherwise). */
const char *csv_cell_unescape(const char *s);

#endif
