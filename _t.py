from fractions import Fraction as F
from exactdp.convolution.linear import LinearConvolutionMechanism, linear_convolve
from exactdp.convolution.domain import Domain
from exactdp.convolution.cyclic import CyclicFourierMechanism
m = LinearConvolutionMechanism([1,1,1], Domain.histograms(5, 3), epsilon=1, delta=F(1,10**6))
print(m, m.candidates)
p=m.privacy(); print(p.pure_ratio if hasattr(p,'pure_ratio') else p)
r=m.release([1,0,2,0,0]); print([str(v) for v in r.y], linear_convolve([1,1,1],[1,0,2,0,0]))
c = CyclicFourierMechanism([1,1,1,0,0,0,0], Domain.histograms(7,3), epsilon=1, delta=F(1,10**6))
print(c.privacy().pure_ratio, m.mse_bound(), c.mse_bound())
