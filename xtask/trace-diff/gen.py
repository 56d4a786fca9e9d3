#!/usr/bin/env python3
"""Random scenario files for trace comparison between two kcsim binaries.

usage: gen.py N OUTDIR   (N files OUTDIR/s000.json ..; deterministic: file i uses seed i)

Each file is a small cluster (3 to 7 brokers, a few topics; every tenth file 8 to 30
brokers and up to 2,100 partitions) with a random
schedule of every kind of action the scenario format has (kills, restarts,
controlled shutdowns, pauses, session expiries, topic changes, reassignments,
elections, produce traffic, slow brokers, config changes). Some actions will
be refused at run time (a dead broker restarted too early, ...): that is part
of what is compared. See run.sh for the comparison itself.
"""
import json, os, random, sys

def scenario(i):
    r = random.Random(i)
    big = i % 10 == 9  # one in ten: a mid-size cluster, so the maps split into many chunks
    nb = r.randint(8, 30) if big else r.randint(3, 7)
    brokers = list(range(nb))
    cfg = {"zookeeper.session.timeout.ms": r.choice([3000, 6000, 10000])}
    if r.random() < 0.3: cfg["unclean.leader.election.enable"] = True
    if r.random() < 0.4: cfg["leader.imbalance.check.interval.seconds"] = r.choice([5, 20, 60])
    if r.random() < 0.3: cfg["min.insync.replicas"] = 2
    if r.random() < 0.2: cfg["sim.controller.zk.mode"] = "sync"
    if r.random() < 0.2: cfg["replica.lag.time.max.ms"] = r.choice([2000, 5000])
    if r.random() < 0.15: cfg["controlled.shutdown.max.retries"] = r.choice([1, 2])
    topics = []
    parts = {}
    for t in range(r.randint(1, 3)):
        name = "t%d" % t
        p = r.randint(100, 700) if big else r.randint(1, 12)
        rf = r.randint(1, min(3, nb))
        topics.append({"name": name, "partitions": p, "replication_factor": rf})
        parts[name] = (p, rf)
    actions = []
    t = 0
    extra = 0
    for _ in range(r.randint(3, 25)):
        t += r.randint(0, 9000)
        b = r.choice(brokers)
        k = r.random()
        topic = r.choice(sorted(parts)) if parts else None
        if k < 0.14: a = {"action": "kill_broker", "broker": b}
        elif k < 0.26: a = {"action": "start_broker", "broker": b}
        elif k < 0.34: a = {"action": "shutdown_broker", "broker": b}
        elif k < 0.39: a = {"action": "pause_broker", "broker": b, "duration_ms": r.choice([500, 4000, 12000])}
        elif k < 0.43: a = {"action": "expire_session", "broker": b}
        elif k < 0.55 and topic:
            p, _ = parts[topic]
            a = {"action": "produce", "topic": topic, "partition": r.randrange(p),
                 "records": r.randint(1, 500), "acks": r.choice([0, 1, "all"])}
        elif k < 0.60:
            name = "n%d" % extra; extra += 1
            p = r.randint(1, 6); rf = r.randint(1, min(3, nb))
            a = {"action": "create_topic", "name": name, "partitions": p, "replication_factor": rf}
            parts[name] = (p, rf)
        elif k < 0.64 and topic:
            p, rf = parts[topic]
            a = {"action": "add_partitions", "topic": topic, "count": p + r.randint(1, 4)}
            parts[topic] = (a["count"], rf)
        elif k < 0.67 and topic:
            a = {"action": "delete_topic", "topic": topic}
        elif k < 0.74 and topic:
            p, rf = parts[topic]
            ps = []
            for q in r.sample(range(p), min(p, r.randint(1, 3))):
                ps.append({"topic": topic, "partition": q,
                           "replicas": r.sample(brokers, r.randint(1, min(3, nb)))})
            a = {"action": "reassign_partitions", "partitions": ps}
        elif k < 0.79:
            a = {"action": "preferred_election"}
        elif k < 0.83 and topic:
            p, _ = parts[topic]
            a = {"action": "elect_leaders", "election_type": r.choice(["PREFERRED", "UNCLEAN"]),
                 "partitions": [{"topic": topic, "partition": r.randrange(p)}]}
        elif k < 0.88: a = {"action": "slow_broker", "broker": b, "lag_ms": r.choice([200, 3000, 20000])}
        elif k < 0.91: a = {"action": "heal_broker", "broker": b}
        elif k < 0.96:
            if r.random() < 0.5 and topic:
                a = {"action": "set_config", "key": "unclean.leader.election.enable",
                     "value": r.choice([True, False]), "topic": topic}
            else:
                if r.random() < 0.5:
                    a = {"action": "set_config", "key": "unclean.leader.election.enable", "value": r.choice([True, False])}
                else:
                    a = {"action": "set_config", "key": "min.insync.replicas", "value": r.choice([1, 2])}
        else:
            a = {"action": "delete_znode", "path": r.choice(["/controller", "/brokers/ids/%d" % b])}
        a = {"at_ms": t, **a}
        actions.append(a)
    return {"version": 1, "seed": i, "brokers": brokers, "config": cfg, "topics": topics, "actions": actions}

def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        with open(os.path.join(out, "s%03d.json" % i), "w") as f:
            json.dump(scenario(i), f)

main()
