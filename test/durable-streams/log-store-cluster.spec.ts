// eventLogStreamStore on a 3-master Redis Cluster (test/log/redis-cluster-server.ts): the shared suites with two
// redisEventLog instances on Cluster clients of their own; a stream's directory, data and access streams hash to
// different slots (so to different masters), which the store never needs in one command.
import { clusterLogs, redisClusterForSuite } from '../log/redis-cluster-server';
import { describeLogStreamStoreForks } from './log-store-fork-suite';
import { describeLogStreamStore } from './log-store-suite';

jest.setTimeout(120_000);

const clusterLog = clusterLogs(() => suite.cluster.startupNodes, 'each');
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 0 });

const twoLogs = async () => ({ a: clusterLog(), b: clusterLog(), cleanup: async () => undefined });
describeLogStreamStore('a 3-master Redis Cluster', twoLogs);
describeLogStreamStoreForks('a 3-master Redis Cluster', twoLogs);
