. /work/firstlook/scratch/lib.sh
prep 07; JOBID=eval-sweep-5
L=$C/logs
mkdir -p $W/www && cd $W/www && (python3 -m http.server 29707 --bind 0.0.0.0 > $W/httpserver.log 2>&1 &) ; cd $W
sleep 1; ss -ltnp | grep 29707
agent node-a 0 29707 $L/node-a.log -- --steps 30
sleep 1
agent node-b 1 29707 $L/node-b.log -- --steps 30
wait
echo done
