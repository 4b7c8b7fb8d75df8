/* cli: pmpplab's command line (docs/ARCHITECTURE.md, "Command line"). Parses arguments
 * into a command and runs it; the TUI is one of the commands. */
#ifndef PMPPLAB_CLI_H
#define PMPPLAB_CLI_H

/* Exit statuses (stable: autograders depend on them). */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

int cli_main(int argc, char **argv);

#endif
