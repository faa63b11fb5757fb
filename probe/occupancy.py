import sys, math, dataclasses
sys.path[:0]=['.','benchmarks']
import wild
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig
dt=sys.argv[1] if len(sys.argv)>1 else 'bfloat16'
shapes=[(e.m,e.n,e.k,e.split) for e in wild.load()]
for s in (1,2,3):
    shapes+= [(m,n,k,'fresh%d'%s) for m,n,k in wild.fresh(s)]
for m,n,k,sp in shapes:
    if m*n*k<2**24: continue
    c=cost_model.choose_on("NVIDIA H200",132,m,n,k,dt)
    if not isinstance(c,MosaicConfig) or c.ping_pong or c.transposed: continue
    cm,cn=c.cta_tile
    if cm!=128: continue
    tiles=math.ceil(m/cm)*math.ceil(n/cn)*c.split_k
    waves=c.waves(m,n)
    occ=tiles/(waves*132)
    work=waves*(cn+53)/c.split_k
    best=None
    for W in range(64,257,16):
        for sk in (c.split_k,):
            if math.ceil(k/c.tile_k)//sk<8 and sk>1: continue
            d=dataclasses.replace(c,tile_n=W,split_k=sk,epi_tile_n=16)
            w=d.waves(m,n)*(W+53)/sk
            if best is None or w<best[0]: best=(w,W,sk,d.waves(m,n))
    if best[0] < 0.93*work:
        print(f"{sp:7s} {m}x{n}x{k} {c.label:45s} tiles={tiles} waves={waves} occ={occ:.2f} -> W={best[1]} sk={best[2]} waves={best[3]} gain={work/best[0]:.2f}")
