/* Lab 08 CPU reference: a 256-bin histogram of bytes. */
void histogram_reference(const unsigned char *data, unsigned int *histo, int n)
{
	for (int b = 0; b < 256; b++)
		histo[b] = 0;
	for (int i = 0; i < n; i++)
		histo[data[i]]++;
}
