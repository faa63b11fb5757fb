import sys, json, dataclasses
sys.path[:0]=['.','benchmarks']
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig, fit_mosaic_config, check_mosaic_config
import moved_picks
dt=sys.argv[1]; out=sys.argv[2]
specs=[s.split(':') for s in sys.argv[3:]]  # MxNxK:W[:sk][:set]
pairs=[]
for sp in specs:
    m,n,k=map(int,sp[0].split('x'))
    c=cost_model.choose_on("NVIDIA H200",132,m,n,k,dt)
    if sp[1]=='s2':
        from pallas_tiled import layouts
        d=fit_mosaic_config(dataclasses.replace(c,tile_k=layouts.long_k_tile_elements(k,dt),max_concurrent_steps=4),dt,dt); check_mosaic_config(d,dt,dt)
        print(sp[0], c.label,'->',d.label); pairs.append({'shape':[m,n,k],'set':sp[3],'old':moved_picks.as_json(c),'new':moved_picks.as_json(d)}); continue
    W=int(sp[1]); sk=int(sp[2]) if len(sp)>2 and sp[2] else c.split_k
    epi=max(e for e in (16,32,64) if W%e==0) if dt!='float32' else max(e for e in (8,16,32) if W%e==0)
    if c.split_k>1 or sk>1: epi=max(e for e in (8,16,32) if W%e==0)
    d=dataclasses.replace(c,tile_n=W,split_k=sk,epi_tile_n=epi)
    if len(sp)>4: d=dataclasses.replace(d,tile_k=int(sp[4]),max_concurrent_steps=int(sp[5]))
    d=fit_mosaic_config(d,dt,dt)
    check_mosaic_config(d,dt,dt)
    print(sp[0], c.label,'->',d.label)
    pairs.append({"shape":[m,n,k],"set":sp[3] if len(sp)>3 else "probe","old":moved_picks.as_json(c),"new":moved_picks.as_json(d)})
json.dump({"dtype":dt,"device_kind":"NVIDIA H200","pairs":pairs},open(out,'w'),indent=1)
