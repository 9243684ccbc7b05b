// libpq, PostgreSQL's client library (Debian's libpq-dev): the chat store's PostgreSQL backend.
#include <libpq-fe.h>
