"""PySCF: a density-fitted restricted Hartree-Fock calculation, then MP2 and CCSD on it, as a quantum chemist
runs them (its C code calls dgemm_ from OpenMP threads).  Saves the energies.  usage: pyscf_cc.py SIZE
OUT.npz"""
import sys

import numpy as np
from pyscf import cc, gto, mp, scf

geometry = {
    "small": ("O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", "sto-3g"),
    "medium": ("O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", "cc-pvdz"),
    # furan in cc-pVDZ (90 functions; benzene's 114 took 60 to 70 s a run on the H100 machine's CPU)
    "large": ("O 0 0 1.163; C 0 1.094 0.363; C 0 -1.094 0.363; C 0 0.715 -0.952; C 0 -0.715 -0.952;"
              "H 0 2.059 0.835; H 0 -2.059 0.835; H 0 1.358 -1.817; H 0 -1.358 -1.817", "cc-pvdz"),
}[sys.argv[1]]
mol = gto.M(atom=geometry[0], basis=geometry[1], verbose=0)
mf = scf.RHF(mol).density_fit()
mf.conv_tol = 1e-11
mf.kernel()
mp2 = mp.MP2(mf).run()
ccsd = cc.CCSD(mf)
ccsd.conv_tol = 1e-10
ccsd.kernel()
np.savez(sys.argv[2], energies=np.array([mf.e_tot, mp2.e_corr, ccsd.e_corr]))
