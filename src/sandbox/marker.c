/* The command's marker: see marker.h. */
#include "sandbox/marker.h"

#include <stdio.h>

static char marker[96];

const char *hb_warden_marker(void)
{
    return marker;
}

void hb_warden_set_marker(const char *m)
{
    snprintf(marker, sizeof marker, "%s", m ? m : "");
}
