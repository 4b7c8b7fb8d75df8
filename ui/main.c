/* pmpplab: main() only hands over to the command line. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
