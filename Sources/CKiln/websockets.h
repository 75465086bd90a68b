// libwebsockets, seen from Swift through `import CKiln.WebSockets` (only KilnWebSockets
// imports it). Wrappers for what the Swift importer cannot use: LWS_PRE is built from a
// function-like macro.
#include <libwebsockets.h>

static inline size_t kiln_lws_pre(void) { return LWS_PRE; }
