# The second Triton probe of the tcgen05 oracle, exactly as it ran on the GPU
# machine (Triton 3.6.0): the register <-> tensor-memory column mapping.
# Each probe stores a 128 x N tile whose element (r, c) is c (as bf16 or
# f32) with the 32x32b layout; the values fold to constants, so the PTX
# shows which column each tcgen05.st register carries, and for 16-bit
# elements which of a pair sits in the low half. See docs/TCGEN05_ORACLE.md;
# `python3 scripts/tcgen05_oracle.py device-command values` prints the
# command that ran it, `... import o.json io.json` reads what it wrote.
import json,os,traceback as T,triton
from triton.backends.compiler import GPUTarget as Z
from triton.experimental import gluon as u
from triton.experimental.gluon import language as l
from triton.experimental.gluon.language.nvidia import blackwell as w
C=l.constexpr
@u.jit
def io(o,D:C,N:C,L:C,R:C):
 t=w.allocate_tensor_memory(D,[128,N],L)
 j=l.arange(0,N,l.SliceLayout(0,R))
 v=(l.full([128,N],0,l.int32,R)+j[None,:]).to(l.float32).to(D)
 t.store(v)
R={"v":triton.__version__,"p":[]}
for n,(d,N) in enumerate([(l.bfloat16,128),(l.bfloat16,64),(l.float32,64),(l.float32,128)]):
 p={"id":n,"ok":0}
 try:
  c=dict(D=d,N=N,L=w.TensorMemoryLayout(block=(128,N),col_stride=1),R=l.BlockedLayout([1,N],[32,1],[4,1],[0,1]))
  x=triton.compile(u._runtime.GluonASTSource(io,{"o":"*fp32","D":"constexpr","N":"constexpr","L":"constexpr","R":"constexpr"},constexprs=c),target=Z("cuda",100,32),options={"num_warps":4})
  p.update(ok=1,ptx=x.asm["ptx"],ttgir=x.asm["ttgir"])
 except Exception:p["e"]=T.format_exc()[-2000:]
 R["p"].append(p);print(n,p["ok"],p.get("e","")[-600:],flush=True)
json.dump(R,open(os.environ["OUT"]+"/io.json","w"))
