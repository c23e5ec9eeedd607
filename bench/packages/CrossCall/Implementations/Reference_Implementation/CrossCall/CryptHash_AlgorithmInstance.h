/* CrossCall: the bench fixture's instance header (see the package README). */
#ifndef CROSSCALL_INSTANCE_H
#define CROSSCALL_INSTANCE_H

#define ALGORITHM_INSTANCE "CrossCall"
#define DIGEST_BIT_LENGTH 256

#endif
