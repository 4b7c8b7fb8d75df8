/* cli_mutate: `pmpplab lab mutate LAB [options]` (issue 14 part 5), its own options
 * parsed here; the work is grader/mutate.h's. */
#ifndef PMPPLAB_CLI_MUTATE_H
#define PMPPLAB_CLI_MUTATE_H

/* Whether ARGV names the command: "lab mutate" as its first words (after global
 * options). Returns the index of "mutate", or 0. */
int cli_mutate_find(int argc, char **argv);
/* Runs it: ARGV is the whole command line, AT the index cli_mutate_find returned.
 * Returns the exit status (cli.h). */
int cli_mutate(int argc, char **argv, int at);

#endif
