# The Triton side of the tcgen05 oracle, exactly as it ran on the GPU machine
# (Triton 3.6.0) to produce test/oracle/tcgen05_triton.json; see
# docs/TCGEN05_ORACLE.md. The device tool sends only the lead's checkout, so
# this program travelled inside the command, compressed, which is why it is
# terse: `python3 scripts/tcgen05_oracle.py device-command` prints that
# command (these comment lines are left out), `... import o.json` turns what
# it wrote into the reference. Run elsewhere: OUT=dir python3 this-file.
#
# mma: one tcgen05_mma of a 128 x K A (shared memory, AP: its permuted view,
#   i.e. M-major; or tensor memory, AT) by a B read from a BR x BC
#   NVMMA-swizzled tile (BP: its permuted view, i.e. K-major B; otherwise
#   N-major), accumulating in a 128 x N f32 tensor-memory tile, use_acc from
#   a kernel argument, committed to an mbarrier, then read back (32x32b).
# tm: a 128 x N tensor-memory tile stored (ST) and/or read back, W columns at
#   column CO (tensor_memory_descriptor.slice when W < N).
# M / U: the configurations, in the order of PROBES in scripts/tcgen05_oracle.py.
# G: the register layout; 0 is the 32x32b one (thread t holds row t).
import json,os,traceback as T,triton
from triton.backends.compiler import GPUTarget as Z
from triton.experimental import gluon as u
from triton.experimental.gluon import language as l
from triton.experimental.gluon.language.nvidia import blackwell as w
Q=w.mbarrier;A=w.allocate_tensor_memory;C=l.constexpr;F=l.float32;Y=l.allocate_shared_memory;E=l.SliceLayout
@u.jit
def sv(o,r,R:C,N:C):
 i=l.arange(0,128,E(1,R));j=l.arange(0,N,E(0,R));l.store(o+i[:,None]*N+j[None,:],r)
@u.jit
def mma(o,f,D:C,N:C,K:C,AT:C,AR:C,AC:C,AL:C,AP:C,TA:C,RA:C,BR:C,BC:C,BL:C,BP:C,TC:C,RC:C):
 q=Y(l.int64,[1],Q.MBarrierLayout());Q.init(q,count=1);c=A(F,[128,N],TC);b=Y(D,[BR,BC],BL)
 if BP:b=b.permute((1,0))
 if AT:
  a=A(D,[128,K],TA);a.store(l.full([128,K],1.0,D,RA))
 else:
  a=Y(D,[AR,AC],AL)
  if AP:a=a.permute((1,0))
 w.tcgen05_mma(a,b,c,use_acc=f!=0);w.tcgen05_commit(q);Q.wait(q,0);sv(o,c.load(RC),RC,N)
@u.jit
def tm(o,D:C,N:C,L:C,R:C,ST:C,CO:C,W:C,WL:C):
 t=A(D,[128,N],L)
 if ST:t.store(l.full([128,N],1.0,D,R))
 if W<N:t=t.slice(CO,W)
 sv(o,t.load(WL),WL,W)
def L(n,p):
 try:return w.TensorMemoryLayout(block=(128,n),col_stride=1)
 except TypeError:return w.TensorMemoryLayout(block=(128,n),unpacked=p)
def G(n,k,d,m):return l.BlockedLayout([1,n],[32,1],[4,1],[0,1])if k<1 else w.get_tmem_reg_layout(d,[128,n],m,4)
def V(s,e=16):return l.NVMMASharedLayout(swizzle_byte_width=s,element_bitwidth=e,rank=2)
h=l.bfloat16;g=128;H=(g,64,g,0)
q=l.float8e4nv
M=[(h,256,64,H,(256,64,g,1)),(h,g,64,H,(g,64,g,1)),(h,64,g,0,(g,64,g,0)),(h,64,64,0,(64,64,g,1)),(h,64,g,(g,g,g,1),(g,64,g,0)),(h,64,g,(g,g,g,0),(g,64,g,0)),(l.float16,g,64,H,(g,64,g,1)),(h,64,32,(g,32,64,0),(64,32,64,1)),(h,64,16,(g,16,32,0),(64,16,32,1)),(h,32,64,H,(64,32,64,0)),(q,256,g,(g,g,g,0),(256,g,g,1))]
U=[(F,64,1,0,64),(F,g,0,0,g),(F,256,0,64,64),(h,g,1,0,g),(h,64,1,0,64)]
R={"v":triton.__version__,"w":dir(w),"p":[]}
def X(fn,s,c):return triton.compile(u._runtime.GluonASTSource(fn,{p:s.get(p,"constexpr")for p in fn.arg_names},constexprs=c),target=Z("cuda",100,32),options={"num_warps":4})
for n,z in enumerate(M+U):
 e=[];p={"id":n,"ok":0}
 for k in(0,1):
  try:
   if n<len(M):
    d,N,K,a,b=z;m=L(K,0);P=L(N,1);B=8 if d==q else 16
    c=dict(D=d,N=N,K=K,AT=a==0,AR=a and a[0],AC=a and a[1],AL=a and V(a[2],B),AP=a and a[3],TA=m,RA=G(K,k,d,m),BR=b[0],BC=b[1],BL=V(b[2],B),BP=b[3],TC=P,RC=G(N,k,F,P))
    x=X(mma,{"o":"*fp32","f":"i32"},c)
   else:
    d,N,s,co,W=z;m=L(N,d==F)
    x=X(tm,{"o":"*fp32"if d==F else"*bf16"},dict(D=d,N=N,L=m,R=G(N,k,d,m),ST=s,CO=co,W=W,WL=G(W,k,d,m)))
   p.update(ok=1,k=k,ptx=x.asm["ptx"],ttgir=x.asm["ttgir"]);break
  except Exception:e.append(T.format_exc()[-1500:])
 p["e"]=e;R["p"].append(p);print(n,p["ok"],e[-1:],flush=True)
 json.dump(R,open(os.environ["OUT"]+"/o.json","w"))
