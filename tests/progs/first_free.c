/* A program whose first free is its own, after gpushim has loaded (tests/t_loading.sh, "dlsym that frees"). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    void *volatile p = malloc(16); /* volatile: the compiler would drop a malloc freed at once */
    free(p);
    puts("freed");
    return 0;
}
