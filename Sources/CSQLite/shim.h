// Debian's SQLite 3 (libsqlite3-dev): vtrim serve's state (VtrimServer/State).
#include <sqlite3.h>
