/* karte's version, one for karted, karte and karte-collect. */
#ifndef KARTE_VERSION_H
#define KARTE_VERSION_H

#define KARTE_VERSION "0.2.0"

#endif
