/* Every kernel of gpushim's, in one translation unit: nvcc makes one fatbin of it (the Makefile). */
#include "permute.cu"
#include "scale.cu"
