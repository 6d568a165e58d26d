/* Every kernel of gpushim's, in one translation unit: nvcc makes one fatbin of it (the Makefile). */
#include "finite.cu"
#include "permute.cu"
#include "scale.cu"
