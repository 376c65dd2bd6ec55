#compdef mqadmin
# zsh completion for mqadmin, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqadmin() {
  local curcontext=$curcontext state state_descr line ret=1
  local -A opt_args
  _arguments -C \
    '(--accessKey)--accessKey[Access key of the admin credential.]:accessKey: ' \
    '(--secretKey)--secretKey[Its secret key (visible in ps: prefer the env or file).]:secretKey: ' \
    '(--credentialsFile)--credentialsFile[Credentials file, mode 0600 \[~/.mqadmin/credentials\].]:credentialsFile:_files' \
    '(--tls)--tls[Connect with TLS (implied by --tlsCaFile/--tlsCertFile).]' \
    '(--tlsCaFile)--tlsCaFile[CA certificate(s) to trust servers.]:tlsCaFile:_files' \
    '(--tlsCertFile)--tlsCertFile[Client certificate (mTLS).]:tlsCertFile:_files' \
    '(--tlsKeyFile)--tlsKeyFile[The client certificate'\''s key.]:tlsKeyFile:_files' \
    '(--version)--version[Print the version and exit.]' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    ': :->command' \
    '*:: :->argument' && ret=0
  case $state in
  (command)
    local -a commands=(
      'addBroker:Start a broker in a running agent from a config file on its host; it is...'
      'addWritePerm:Give a broker set its write permission back after wipeWritePerm: it accepts...'
      'assignPreferredMaster:Record a broker set'\''s preferred master (kept by the controllers; elections...'
      'brokerStatus:A broker'\''s runtime figures (-b), or every replica'\''s of a cluster (-c):...'
      'cleanBrokerMetadata:Remove dead brokers (with -l, alive ones too) from a broker set'\''s controller...'
      'cloneGroupOffset:Give a group the committed offsets another group has on a topic, queue by...'
      'clusterList:List every cluster, broker set and replica: role, address, alive, in sync,...'
      'consumeMessage:Read confirmed messages of a topic from a broker set'\''s master (or one...'
      'consumerConnection:The clients of a consumer group connected through the access points: id,...'
      'consumerProgress:A group'\''s progress per queue on each broker set'\''s master: broker and...'
      'consumerStatus:A consumer group'\''s clients as the access points know them, and whether they...'
      'deleteExpiredCommitLog:Run retention now on a broker (-b) or on every replica of a cluster (-c), as...'
      'deleteSubGroup:Delete a subscription group'\''s metadata; an unknown group is a no-op.'
      'deleteTopic:Delete a topic'\''s metadata (its messages stay until retention removes them);...'
      'electMaster:Make a broker master (admin-designated election; it must be alive and in the...'
      'epochs:Fleet analytics: collect epoch caches across clusters, report on them with...'
      'getBrokerConfig:Show a broker'\''s effective configuration (-b), or that of every replica of a...'
      'getBrokerEpoch:Show every replica'\''s epoch entries and offsets (all sets when -b/-c are...'
      'getConsumerConfig:A subscription group'\''s config (exit 1: no such group).'
      'getControllerConfig:Show the effective configuration of every listed controller node, and the...'
      'getControllerMetaData:Show the controller group: leader, peers, and each node'\''s Raft health (term,...'
      'getSyncStateSet:Show master, epochs, and in-sync / not-in-sync replicas of broker sets (all...'
      'haStatus:Show HA runtime status: a master'\''s slaves (ack offset, lag, in sync), or a...'
      'listBrokers:List the brokers an agent hosts, with role, epoch and any start-up error.'
      'printMsg:Print the confirmed messages of every queue of a topic stored within -b..-e...'
      'printMsgByQueue:Print a range of one queue, stored within -b..-e (Java'\''s printMsgByQueue;...'
      'producerConnection:The producers that announced a topic (their settings'\'' topics) to an access...'
      'queryCq:Show consume-queue entries of one queue: where each message lies in the...'
      'queryMsgById:Show messages by offset message id (store host and commit-log offset), from...'
      'queryMsgByKey:Find messages by key through the message index, newest first (Java'\''s...'
      'queryMsgByOffset:Show the message at a queue offset (Java'\''s queryMsgByOffset; -o is the...'
      'queryMsgByUniqueKey:Find a message by its unique key (the client'\''s message id) through the...'
      'removeBroker:Stop a broker hosted by an agent and forget it (its store stays on disk).'
      'resetMasterFlushOffset:Raise a master'\''s flush offset, i.e. its confirmOffset...'
      'resetOffsetByOffset:Set a group'\''s offset in one queue (the next message it receives there); its...'
      'resetOffsetByTime:Move a group'\''s offsets on a topic to the first message stored at or after a...'
      'sandbox:Run a real local cluster on loopback (controllers and broker agents) to try...'
      'sendMessage:Send messages to the master of a broker set (or round robin over the masters...'
      'skipAccumulatedMessage:Skip every message a group has not consumed on a topic: its offsets move to...'
      'statsAll:Per topic and consumer group: accumulation (messages not yet consumed),...'
      'topicClusterList:The cluster a topic belongs to (Java lists every cluster of its brokers; a...'
      'topicList:List the topics the controllers keep (of one cluster with -c), with their...'
      'topicRoute:Where a topic is served: per broker set its queues, perm and current master...'
      'topicStatus:Per broker set serving a topic, each queue'\''s min and max offset on the...'
      'transactionStatus:List the open transactions of a topic: each one'\''s id, message id, age and...'
      'transferMaster:Move a broker set'\''s master role to an in-sync replica without losing or...'
      'updateBrokerConfig:Change a runtime key of a broker (-b) or of every replica of a cluster (-c).'
      'updateControllerConfig:Set a runtime config key for the whole controller group (through the leader...'
      'updateOrderConf:Make a topic ordered on the broker sets named, or show or remove that...'
      'updateSubGroup:Create a subscription group or change it (kept by the controllers; options...'
      'updateTopic:Create a topic or change it (kept by the controllers; options left out keep...'
      'updateTopicPerm:Change a topic'\''s permission: 2 (W), 4 (R) or 6 (RW), on every broker set...'
      'wait:Block until a broker set has a master, a full SyncStateSet, or the...'
      'wipeWritePerm:Take a broker set'\''s write permission away (the drain step before...'
    )
    _describe -t commands 'mqadmin command' commands && ret=0
    ;;
  (argument)
    curcontext=${curcontext%:*:*}:mqadmin-$words[1]:
    case $words[1] in
    (addBroker|add-broker) _mqadmin__addBroker && ret=0 ;;
    (addWritePerm|wipeWritePerm|add-write-perm|wipe-write-perm) _mqadmin__addWritePerm && ret=0 ;;
    (assignPreferredMaster|assign-preferred-master) _mqadmin__assignPreferredMaster && ret=0 ;;
    (brokerStatus|deleteExpiredCommitLog|getBrokerConfig|broker-status|delete-expired-commit-log|get-broker-config) _mqadmin__brokerStatus && ret=0 ;;
    (cleanBrokerMetadata|clean-broker-metadata) _mqadmin__cleanBrokerMetadata && ret=0 ;;
    (cloneGroupOffset|clone-group-offset) _mqadmin__cloneGroupOffset && ret=0 ;;
    (clusterList|cluster-list) _mqadmin__clusterList && ret=0 ;;
    (consumeMessage|consume-message) _mqadmin__consumeMessage && ret=0 ;;
    (consumerConnection|consumer-connection) _mqadmin__consumerConnection && ret=0 ;;
    (consumerProgress|consumer-progress) _mqadmin__consumerProgress && ret=0 ;;
    (consumerStatus|consumer-status) _mqadmin__consumerStatus && ret=0 ;;
    (deleteSubGroup|delete-sub-group) _mqadmin__deleteSubGroup && ret=0 ;;
    (deleteTopic|delete-topic) _mqadmin__deleteTopic && ret=0 ;;
    (electMaster|elect-master) _mqadmin__electMaster && ret=0 ;;
    (epochs) _mqadmin__epochs && ret=0 ;;
    (getBrokerEpoch|getSyncStateSet|get-broker-epoch|get-sync-state-set) _mqadmin__getBrokerEpoch && ret=0 ;;
    (getConsumerConfig|get-consumer-config) _mqadmin__getConsumerConfig && ret=0 ;;
    (getControllerConfig|getControllerMetaData|get-controller-config|get-controller-meta-data) _mqadmin__getControllerConfig && ret=0 ;;
    (haStatus|ha-status) _mqadmin__haStatus && ret=0 ;;
    (listBrokers|list-brokers) _mqadmin__listBrokers && ret=0 ;;
    (printMsg|print-msg) _mqadmin__printMsg && ret=0 ;;
    (printMsgByQueue|print-msg-by-queue) _mqadmin__printMsgByQueue && ret=0 ;;
    (producerConnection|producer-connection) _mqadmin__producerConnection && ret=0 ;;
    (queryCq|query-cq) _mqadmin__queryCq && ret=0 ;;
    (queryMsgById|query-msg-by-id) _mqadmin__queryMsgById && ret=0 ;;
    (queryMsgByKey|query-msg-by-key) _mqadmin__queryMsgByKey && ret=0 ;;
    (queryMsgByOffset|query-msg-by-offset) _mqadmin__queryMsgByOffset && ret=0 ;;
    (queryMsgByUniqueKey|query-msg-by-unique-key) _mqadmin__queryMsgByUniqueKey && ret=0 ;;
    (removeBroker|remove-broker) _mqadmin__removeBroker && ret=0 ;;
    (resetMasterFlushOffset|reset-master-flush-offset) _mqadmin__resetMasterFlushOffset && ret=0 ;;
    (resetOffsetByOffset|reset-offset-by-offset) _mqadmin__resetOffsetByOffset && ret=0 ;;
    (resetOffsetByTime|reset-offset-by-time) _mqadmin__resetOffsetByTime && ret=0 ;;
    (sandbox) _mqadmin__sandbox && ret=0 ;;
    (sendMessage|send-message) _mqadmin__sendMessage && ret=0 ;;
    (skipAccumulatedMessage|skip-accumulated-message) _mqadmin__skipAccumulatedMessage && ret=0 ;;
    (statsAll|stats-all) _mqadmin__statsAll && ret=0 ;;
    (topicClusterList|topicRoute|topicStatus|topic-cluster-list|topic-route|topic-status) _mqadmin__topicClusterList && ret=0 ;;
    (topicList|topic-list) _mqadmin__topicList && ret=0 ;;
    (transactionStatus|transaction-status) _mqadmin__transactionStatus && ret=0 ;;
    (transferMaster|transfer-master) _mqadmin__transferMaster && ret=0 ;;
    (updateBrokerConfig|update-broker-config) _mqadmin__updateBrokerConfig && ret=0 ;;
    (updateControllerConfig|update-controller-config) _mqadmin__updateControllerConfig && ret=0 ;;
    (updateOrderConf|update-order-conf) _mqadmin__updateOrderConf && ret=0 ;;
    (updateSubGroup|update-sub-group) _mqadmin__updateSubGroup && ret=0 ;;
    (updateTopic|update-topic) _mqadmin__updateTopic && ret=0 ;;
    (updateTopicPerm|update-topic-perm) _mqadmin__updateTopicPerm && ret=0 ;;
    (wait) _mqadmin__wait && ret=0 ;;
    esac
    ;;
  esac
  return ret
}

_mqadmin__addBroker() {
  _arguments \
    '(-c --brokerContainerAddr)-c[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-c --brokerContainerAddr)--brokerContainerAddr[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-b --brokerConfigPath)-b[Broker config file, a path on the agent'\''s host.]:brokerConfigPath:_files' \
    '(-b --brokerConfigPath)--brokerConfigPath[Broker config file, a path on the agent'\''s host.]:brokerConfigPath:_files' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__addWritePerm() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-b --brokerName)-b[The broker set.]:brokerName: ' \
    '(-b --brokerName)--brokerName[The broker set.]:brokerName: ' \
    '(-c --clusterName)-c[The set'\''s cluster (checked; ours, not Java'\''s).]:clusterName: ' \
    '(-c --clusterName)--clusterName[The set'\''s cluster (checked; ours, not Java'\''s).]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__assignPreferredMaster() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Cluster of the broker set.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster of the broker set.]:clusterName: ' \
    '(-bn --brokerName)-bn[Broker set.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set.]:brokerName: ' \
    '(-b --brokerId)-b[Broker id to prefer as master.]:brokerId: ' \
    '(-b --brokerId)--brokerId[Broker id to prefer as master.]:brokerId: ' \
    '(--clear)--clear[Remove the set'\''s preferred master instead.]' \
    '(--wait)--wait[Then wait until that broker is the alive master (exit 3 on timeout).]' \
    '(--timeout)--timeout[Seconds allowed in all, the wait included.]:timeout: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__brokerStatus() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-c --clusterName)-c[Every replica of this cluster (found through -a).]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every replica of this cluster (found through -a).]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__cleanBrokerMetadata() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-bn --brokerName)-bn[Broker set to clean.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set to clean.]:brokerName: ' \
    '(-b --brokerControllerIdsToClean)-b[Ids to remove, e.g. '\''1;2'\'' (or --wholeSet).]:brokerControllerIdsToClean: ' \
    '(-b --brokerControllerIdsToClean)--brokerControllerIdsToClean[Ids to remove, e.g. '\''1;2'\'' (or --wholeSet).]:brokerControllerIdsToClean: ' \
    '(--wholeSet)--wholeSet[Remove the whole broker set instead of listed ids (-b).]' \
    '(-c --clusterName)-c[Cluster of the set.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster of the set.]:clusterName: ' \
    '(-l --cleanLivingBroker)-l[Also remove brokers that are still alive.]' \
    '(-l --cleanLivingBroker)--cleanLivingBroker[Also remove brokers that are still alive.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__cloneGroupOffset() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-s --srcGroup)-s[The group to copy from.]:srcGroup: ' \
    '(-s --srcGroup)--srcGroup[The group to copy from.]:srcGroup: ' \
    '(-d --destGroup)-d[The group to copy to.]:destGroup: ' \
    '(-d --destGroup)--destGroup[The group to copy to.]:destGroup: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__clusterList() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Every set of a cluster.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every set of a cluster.]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-i --interval)-i[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(-i --interval)--interval[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(--count)--count[With -i: stop after this many runs.]:count: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__consumeMessage() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-b -bn --brokerName)-b[Broker set to read from (with -g: default every set serving the topic).]:brokerName: ' \
    '(-b -bn --brokerName)-bn[Broker set to read from (with -g: default every set serving the topic).]:brokerName: ' \
    '(-b -bn --brokerName)--brokerName[Broker set to read from (with -g: default every set serving the topic).]:brokerName: ' \
    '(-i -q --queueId)-i[One queue (default: every queue).]:queueId: ' \
    '(-i -q --queueId)-q[One queue (default: every queue).]:queueId: ' \
    '(-i -q --queueId)--queueId[One queue (default: every queue).]:queueId: ' \
    '(--offset)--offset[Queue offset to start at (Java'\''s -o) \[0\]; not with -g.]:offset: ' \
    '(-c --MessageNumber --max)-c[At most this many messages in all.]:max: ' \
    '(-c --MessageNumber --max)--MessageNumber[At most this many messages in all.]:max: ' \
    '(-c --MessageNumber --max)--max[At most this many messages in all.]:max: ' \
    '(--brokerAddr)--brokerAddr[Read from this replica instead of the master; not with -g.]:brokerAddr: ' \
    '(-g --consumerGroup)-g[Receive and ack as this subscription group (POP) instead of reading raw.]:consumerGroup: ' \
    '(-g --consumerGroup)--consumerGroup[Receive and ack as this subscription group (POP) instead of reading raw.]:consumerGroup: ' \
    '(--filter)--filter[With -g: tag expression, '\''*'\'' or '\''TagA || TagB'\'' \[*\].]:filter: ' \
    '(--invisible-time)--invisible-time[With -g: ms a received message stays invisible to the group unless acked...]:invisible-time: ' \
    '(--wait)--wait[With -g: ms each receive waits for a message when none is visible \[1000\].]:wait: ' \
    '(--no-ack)--no-ack[With -g: receive only; the messages come back after --invisible-time.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__consumerConnection() {
  _arguments \
    '(-g --consumerGroup)-g[The consumer group.]:consumerGroup: ' \
    '(-g --consumerGroup)--consumerGroup[The consumer group.]:consumerGroup: ' \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__consumerProgress() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-t --topic)-t[Only this topic (default: every topic the group consumed).]:topic: ' \
    '(-t --topic)--topic[Only this topic (default: every topic the group consumed).]:topic: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__consumerStatus() {
  _arguments \
    '(-g --consumerGroup)-g[The consumer group.]:consumerGroup: ' \
    '(-g --consumerGroup)--consumerGroup[The consumer group.]:consumerGroup: ' \
    '(-i --clientId)-i[Only this client.]:clientId: ' \
    '(-i --clientId)--clientId[Only this client.]:clientId: ' \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__deleteSubGroup() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Cluster it belongs to.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster it belongs to.]:clusterName: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__deleteTopic() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Cluster it belongs to.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster it belongs to.]:clusterName: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__electMaster() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Cluster of the broker set.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster of the broker set.]:clusterName: ' \
    '(-bn --brokerName)-bn[Broker set to elect in.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set to elect in.]:brokerName: ' \
    '(-b --brokerId)-b[Broker id that should become master.]:brokerId: ' \
    '(-b --brokerId)--brokerId[Broker id that should become master.]:brokerId: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__epochs() {
  local curcontext=$curcontext state state_descr line ret=1
  local -A opt_args
  _arguments -C \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    ': :->command' \
    '*:: :->argument' && ret=0
  case $state in
  (command)
    local -a commands=(
      'collect:Append one snapshot of every cluster'\''s SyncStateSet data and every replica'\''s...'
      'report:Aggregate the dataset with PySpark: masters, lag, master changes,...'
      'serve:Run a Spark Connect server for '\''epochs report --remote'\'' until Ctrl-C or SIGTERM.'
      'synth:Write a synthetic fleet with injected anomalies of every kind in known...'
    )
    _describe -t commands 'mqadmin epochs command' commands && ret=0
    ;;
  (argument)
    curcontext=${curcontext%:*:*}:mqadmin-epochs-$words[1]:
    case $words[1] in
    (collect) _mqadmin__epochs__collect && ret=0 ;;
    (report) _mqadmin__epochs__report && ret=0 ;;
    (serve) _mqadmin__epochs__serve && ret=0 ;;
    (synth) _mqadmin__epochs__synth && ret=0 ;;
    esac
    ;;
  esac
  return ret
}

_mqadmin__epochs__collect() {
  _arguments \
    '(--out)--out[Dataset directory to append the snapshot to (created).]:out:_files' \
    '(--fleet)--fleet[JSON file: cluster name → controller addresses.]:fleet:_files' \
    '(-a --controllerAddress)-a[Controllers of one cluster (with --cluster-name).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controllers of one cluster (with --cluster-name).]:controllerAddress: ' \
    '(-c --cluster-name --clusterName)-c[The cluster -a serves.]:clusterName: ' \
    '(-c --cluster-name --clusterName)--cluster-name[The cluster -a serves.]:clusterName: ' \
    '(-c --cluster-name --clusterName)--clusterName[The cluster -a serves.]:clusterName: ' \
    '*--from-stores[Read stopped brokers'\'' store directories instead (repeatable).]:from-stores:_files' \
    '(--strict)--strict[Exit 1 if any cluster or replica was unreachable.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__epochs__report() {
  _arguments \
    '(--input)--input[Dataset directory written by collect or synth.]:input:_files' \
    '(--master)--master[Spark master URL (default local\[*\]: this machine, all cores).]:master: ' \
    '(--remote)--remote[Spark Connect server to run on instead, sc://host:port (e.g. one '\''mqadmin...]:remote: ' \
    '(--since)--since[Ignore snapshots before this time (ISO-8601 or epoch ms).]:since: ' \
    '(--top)--top[Broker sets in each worst-N list.]:top: ' \
    '(--out)--out[Also write the report tables as Parquet here.]:out:_files' \
    '(--details)--details[Include every set and replica in the output.]' \
    '*--conf[Spark setting KEY=VALUE, repeatable, as spark-submit --conf (e.g....]:conf: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__epochs__serve() {
  _arguments \
    '(--port)--port[Port on 127.0.0.1 (0: any free one).]:port: ' \
    '(--master)--master[Spark master the server runs its jobs on (default: this machine).]:master: ' \
    '*--conf[Server Spark setting KEY=VALUE, repeatable (e.g. spark.driver.memory=3g for...]:conf: ' \
    '(--start-timeout)--start-timeout[Seconds to wait for the server to listen.]:start-timeout: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__epochs__synth() {
  _arguments \
    '(--out)--out[Dataset directory to append the snapshot to (created).]:out:_files' \
    '(--clusters)--clusters[Clusters in the fleet.]:clusters: ' \
    '(--sets)--sets[Broker sets per cluster.]:sets: ' \
    '(--replicas)--replicas[Replicas per broker set.]:replicas: ' \
    '(--epochs)--epochs[Epoch entries per replica.]:epochs: ' \
    '(--seed)--seed[Same seed, same fleet.]:seed: ' \
    '(--snapshots)--snapshots[Snapshots to write (one minute apart).]:snapshots: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__getBrokerEpoch() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '*-b[Broker set name(s).]:brokerName: ' \
    '*--brokerName[Broker set name(s).]:brokerName: ' \
    '(-c --clusterName)-c[Every set of a cluster.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every set of a cluster.]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-i --interval)-i[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(-i --interval)--interval[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(--count)--count[With -i: stop after this many runs.]:count: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__getConsumerConfig() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__getControllerConfig() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__haStatus() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-c --clusterName)-c[Masters of a cluster.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Masters of a cluster.]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-i --interval)-i[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(-i --interval)--interval[Repeat every N seconds until Ctrl-C (or --count runs).]:interval: ' \
    '(--count)--count[With -i: stop after this many runs.]:count: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__listBrokers() {
  _arguments \
    '(-c --brokerContainerAddr)-c[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-c --brokerContainerAddr)--brokerContainerAddr[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__printMsg() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-c --charsetName)-c[Charset of text bodies.]:charsetName: ' \
    '(-c --charsetName)--charsetName[Charset of text bodies.]:charsetName: ' \
    '(-s --subExpression)-s[Tag expression ('\''*'\'', '\''A || B'\'').]:subExpression: ' \
    '(-s --subExpression)--subExpression[Tag expression ('\''*'\'', '\''A || B'\'').]:subExpression: ' \
    '(-b --beginTimestamp)-b[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-b --beginTimestamp)--beginTimestamp[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-e --endTimestamp)-e[Stored at or before (as -b).]:endTimestamp: ' \
    '(-e --endTimestamp)--endTimestamp[Stored at or before (as -b).]:endTimestamp: ' \
    '(-d --printBody)-d[true or false.]:printBody: ' \
    '(-d --printBody)--printBody[true or false.]:printBody: ' \
    '(-bn --brokerName)-bn[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__printMsgByQueue() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-bn --brokerName)-bn[Broker set (Java'\''s -a).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set (Java'\''s -a).]:brokerName: ' \
    '(-i --queueId)-i[Queue id.]:queueId: ' \
    '(-i --queueId)--queueId[Queue id.]:queueId: ' \
    '(-c --charsetName)-c[Charset of text bodies.]:charsetName: ' \
    '(-c --charsetName)--charsetName[Charset of text bodies.]:charsetName: ' \
    '(-s --subExpression)-s[Tag expression ('\''*'\'', '\''A || B'\'').]:subExpression: ' \
    '(-s --subExpression)--subExpression[Tag expression ('\''*'\'', '\''A || B'\'').]:subExpression: ' \
    '(-b --beginTimestamp)-b[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-b --beginTimestamp)--beginTimestamp[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-e --endTimestamp)-e[Stored at or before (as -b).]:endTimestamp: ' \
    '(-e --endTimestamp)--endTimestamp[Stored at or before (as -b).]:endTimestamp: ' \
    '(-p --print)-p[Print the messages: true or false.]:print: ' \
    '(-p --print)--print[Print the messages: true or false.]:print: ' \
    '(-d --printBody)-d[Print bodies: true or false.]:printBody: ' \
    '(-d --printBody)--printBody[Print bodies: true or false.]:printBody: ' \
    '(-f --calculate)-f[Count messages by tag: true or false.]:calculate: ' \
    '(-f --calculate)--calculate[Count messages by tag: true or false.]:calculate: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__producerConnection() {
  _arguments \
    '(-t --topic)-t[The topic.]:topic: ' \
    '(-t --topic)--topic[The topic.]:topic: ' \
    '(-g --producerGroup)-g[Accepted for Java scripts: RocketMQ 5 producers have no group.]:producerGroup: ' \
    '(-g --producerGroup)--producerGroup[Accepted for Java scripts: RocketMQ 5 producers have no group.]:producerGroup: ' \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__queryCq() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-q --queue)-q[Queue id.]:queue: ' \
    '(-q --queue)--queue[Queue id.]:queue: ' \
    '(-i --index)-i[First queue offset.]:index: ' \
    '(-i --index)--index[First queue offset.]:index: ' \
    '(-c --count)-c[How many entries.]:count: ' \
    '(-c --count)--count[How many entries.]:count: ' \
    '(-b --brokerAddr)-b[Ask this one replica (default: the set'\''s master).]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[Ask this one replica (default: the set'\''s master).]:brokerAddr: ' \
    '(-bn --brokerName)-bn[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__queryMsgById() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-i --msgId)-i[Offset message id(s) (offsetMsgId), '\'','\''-separated.]:msgId: ' \
    '(-i --msgId)--msgId[Offset message id(s) (offsetMsgId), '\'','\''-separated.]:msgId: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__queryMsgByKey() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-k --msgKey)-k[A message key (one word of KEYS).]:msgKey: ' \
    '(-k --msgKey)--msgKey[A message key (one word of KEYS).]:msgKey: ' \
    '(-b --beginTimestamp)-b[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-b --beginTimestamp)--beginTimestamp[Stored at or after: epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS.]:beginTimestamp: ' \
    '(-e --endTimestamp)-e[Stored at or before (as -b).]:endTimestamp: ' \
    '(-e --endTimestamp)--endTimestamp[Stored at or before (as -b).]:endTimestamp: ' \
    '(-m --maxNum)-m[At most this many per broker set.]:maxNum: ' \
    '(-m --maxNum)--maxNum[At most this many per broker set.]:maxNum: ' \
    '(-bn --brokerName)-bn[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__queryMsgByOffset() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-b --brokerName)-b[Broker set.]:brokerName: ' \
    '(-b --brokerName)--brokerName[Broker set.]:brokerName: ' \
    '(-i --queueId)-i[Queue id.]:queueId: ' \
    '(-i --queueId)--queueId[Queue id.]:queueId: ' \
    '(-o --offset)-o[Queue offset.]:offset: ' \
    '(-o --offset)--offset[Queue offset.]:offset: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(--output)--output[table, json or legacy.]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__queryMsgByUniqueKey() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-i --msgId)-i[The message id a client gave it (UNIQ_KEY).]:msgId: ' \
    '(-i --msgId)--msgId[The message id a client gave it (UNIQ_KEY).]:msgId: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(--showAll)--showAll[Every message found (a resent id), not the first.]' \
    '(-bn --brokerName)-bn[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Only this broker set (with --brokerAddr: the set it serves).]:brokerName: ' \
    '(--brokerAddr)--brokerAddr[Ask this one replica (any role) instead of the masters.]:brokerAddr: ' \
    '(--body-format)--body-format[How bodies print: text, hex or base64.]:body-format: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__removeBroker() {
  _arguments \
    '(-c --brokerContainerAddr)-c[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-c --brokerContainerAddr)--brokerContainerAddr[The agent'\''s container address.]:brokerContainerAddr: ' \
    '(-b --brokerIdentity)-b[clusterName:brokerName:brokerId.]:brokerIdentity: ' \
    '(-b --brokerIdentity)--brokerIdentity[clusterName:brokerName:brokerId.]:brokerIdentity: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__resetMasterFlushOffset() {
  _arguments \
    '(-b --brokerAddr)-b[The master broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[The master broker'\''s address.]:brokerAddr: ' \
    '(--offset)--offset[New flush (confirm) offset; Java'\''s -o.]:offset: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__resetOffsetByOffset() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-b --brokerName)-b[The broker set of the queue.]:brokerName: ' \
    '(-b --brokerName)--brokerName[The broker set of the queue.]:brokerName: ' \
    '(-i -q --queueId)-i[The queue.]:queueId: ' \
    '(-i -q --queueId)-q[The queue.]:queueId: ' \
    '(-i -q --queueId)--queueId[The queue.]:queueId: ' \
    '(--offset)--offset[The group'\''s next offset in the queue (Java'\''s -o).]:offset: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__resetOffsetByTime() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-s --timestamp)-s[Epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS (this host'\''s zone).]:timestamp: ' \
    '(-s --timestamp)--timestamp[Epoch ms, '\''now'\'', or yyyy-MM-dd#HH:mm:ss:SSS (this host'\''s zone).]:timestamp: ' \
    '(-f --force)-f[Java'\''s switch: only true (its default) is supported.]:force: ' \
    '(-f --force)--force[Java'\''s switch: only true (its default) is supported.]:force: ' \
    '(-b --brokerName)-b[Only this broker set (default: every set).]:brokerName: ' \
    '(-b --brokerName)--brokerName[Only this broker set (default: every set).]:brokerName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__sandbox() {
  local curcontext=$curcontext state state_descr line ret=1
  local -A opt_args
  _arguments -C \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    ': :->command' \
    '*:: :->argument' && ret=0
  case $state in
  (command)
    local -a commands=(
      'down:Stop exactly the processes the sandbox started (by pid); files stay for a...'
      'kill:Send a signal to one sandbox process, for failover drills ('\''master'\'': the...'
      'start:Start one stopped sandbox process again (same ports, same data).'
      'status:Show the sandbox'\''s processes, addresses, pids and logs.'
      'stop:Stop one sandbox process cleanly (SIGTERM, then SIGKILL after 15 s), e.g....'
      'up:Start the sandbox and wait until every broker set has a master and a full...'
    )
    _describe -t commands 'mqadmin sandbox command' commands && ret=0
    ;;
  (argument)
    curcontext=${curcontext%:*:*}:mqadmin-sandbox-$words[1]:
    case $words[1] in
    (down) _mqadmin__sandbox__down && ret=0 ;;
    (kill) _mqadmin__sandbox__kill && ret=0 ;;
    (start|stop) _mqadmin__sandbox__start && ret=0 ;;
    (status) _mqadmin__sandbox__status && ret=0 ;;
    (up) _mqadmin__sandbox__up && ret=0 ;;
    esac
    ;;
  esac
  return ret
}

_mqadmin__sandbox__down() {
  _arguments \
    '(--dir)--dir[Sandbox directory (env MQADMIN_SANDBOX_DIR).]:dir:_files -/' \
    '(--purge)--purge[Also delete the sandbox directory (data, logs).]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__sandbox__kill() {
  _arguments \
    '(--dir)--dir[Sandbox directory (env MQADMIN_SANDBOX_DIR).]:dir:_files -/' \
    '(--signal)--signal[KILL, TERM, STOP or CONT.]:signal: ' \
    '(-bn --brokerName)-bn[With '\''master'\'': which set (default: the first).]:brokerName: ' \
    '(-bn --brokerName)--brokerName[With '\''master'\'': which set (default: the first).]:brokerName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    '1:target: '
}

_mqadmin__sandbox__start() {
  _arguments \
    '(--dir)--dir[Sandbox directory (env MQADMIN_SANDBOX_DIR).]:dir:_files -/' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    '1:node: '
}

_mqadmin__sandbox__status() {
  _arguments \
    '(--dir)--dir[Sandbox directory (env MQADMIN_SANDBOX_DIR).]:dir:_files -/' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__sandbox__up() {
  _arguments \
    '(--dir)--dir[Sandbox directory (env MQADMIN_SANDBOX_DIR).]:dir:_files -/' \
    '(--controllers)--controllers[Controller nodes: 1, 3 or 5.]:controllers: ' \
    '(--broker-sets)--broker-sets[Broker sets (broker-a, broker-b, ...); 0 for controllers only.]:broker-sets: ' \
    '(--replicas)--replicas[Replicas per set = agents (aK hosts replica K).]:replicas: ' \
    '(--cluster-name)--cluster-name[Cluster of every set.]:cluster-name: ' \
    '*--broker-conf[Extra broker key=value (repeatable).]:broker-conf: ' \
    '*--controller-conf[Extra controller key=value (repeatable).]:controller-conf: ' \
    '(--timeout)--timeout[Seconds to wait until everything serves.]:timeout: ' \
    '(--secure)--secure[TLS (client certificates required), credentials and an encrypted Raft.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__sendMessage() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic.]:topic: ' \
    '(-t --topic)--topic[Topic.]:topic: ' \
    '(-p --body)-p[Message body; '\''{i}'\'' is replaced by the message'\''s index.]:body: ' \
    '(-p --body)--body[Message body; '\''{i}'\'' is replaced by the message'\''s index.]:body: ' \
    '(-k --key --keys)-k[Message keys (property KEYS).]:keys: ' \
    '(-k --key --keys)--key[Message keys (property KEYS).]:keys: ' \
    '(-k --key --keys)--keys[Message keys (property KEYS).]:keys: ' \
    '(-c --tags)-c[Message tag (property TAGS).]:tags: ' \
    '(-c --tags)--tags[Message tag (property TAGS).]:tags: ' \
    '(--message-group)--message-group[Message group (property __SHARDINGKEY): without -q the broker hashes it to...]:message-group: ' \
    '*--property[A user property KEY=VALUE (repeatable).]:property: ' \
    '(-b -bn --broker --brokerName)-b[Broker set (default: round robin over the masters of the sets serving the...]:brokerName: ' \
    '(-b -bn --broker --brokerName)-bn[Broker set (default: round robin over the masters of the sets serving the...]:brokerName: ' \
    '(-b -bn --broker --brokerName)--broker[Broker set (default: round robin over the masters of the sets serving the...]:brokerName: ' \
    '(-b -bn --broker --brokerName)--brokerName[Broker set (default: round robin over the masters of the sets serving the...]:brokerName: ' \
    '(-i -q --qid --queueId)-i[Queue id (default: the broker picks).]:queueId: ' \
    '(-i -q --qid --queueId)-q[Queue id (default: the broker picks).]:queueId: ' \
    '(-i -q --qid --queueId)--qid[Queue id (default: the broker picks).]:queueId: ' \
    '(-i -q --qid --queueId)--queueId[Queue id (default: the broker picks).]:queueId: ' \
    '(--count)--count[How many messages to send.]:count: ' \
    '(--deliverTime)--deliverTime[A delayed message: delivered at this time (ms since the epoch; property...]:deliverTime: ' \
    '(--delay)--delay[A delayed message: delivered this many seconds from now.]:delay: ' \
    '(--transaction)--transaction[A transactional message (the topic'\''s message.type TRANSACTION): stored as a...]:transaction:(commit rollback check)' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__skipAccumulatedMessage() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-f --force)-f[Java'\''s switch: only true (its default).]:force: ' \
    '(-f --force)--force[Java'\''s switch: only true (its default).]:force: ' \
    '(-c --cluster)-c[The topic'\''s cluster (checked).]:cluster: ' \
    '(-c --cluster)--cluster[The topic'\''s cluster (checked).]:cluster: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__statsAll() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Only this topic.]:topic: ' \
    '(-t --topic)--topic[Only this topic.]:topic: ' \
    '(--activeTopic)--activeTopic[Only rows with messages in or out (Java'\''s -a).]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__topicClusterList() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__topicList() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Every set of a cluster.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every set of a cluster.]:clusterName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__transactionStatus() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic (message.type TRANSACTION).]:topic: ' \
    '(-t --topic)--topic[Topic (message.type TRANSACTION).]:topic: ' \
    '(-b -bn --brokerName)-b[One broker set (default: every set).]:brokerName: ' \
    '(-b -bn --brokerName)-bn[One broker set (default: every set).]:brokerName: ' \
    '(-b -bn --brokerName)--brokerName[One broker set (default: every set).]:brokerName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__transferMaster() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-c --clusterName)-c[Cluster of the broker set.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Cluster of the broker set.]:clusterName: ' \
    '(-bn --brokerName)-bn[Broker set.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set.]:brokerName: ' \
    '(-b --brokerId)-b[In-sync broker id to make master.]:brokerId: ' \
    '(-b --brokerId)--brokerId[In-sync broker id to make master.]:brokerId: ' \
    '(--timeout)--timeout[Seconds the master may pause writes waiting for the target to catch up...]:timeout: ' \
    '(--dry-run)--dry-run[Show what would happen and whether it is allowed; change nothing.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateBrokerConfig() {
  _arguments \
    '(-k --key)-k[Config key (runtime keys only; see docs/agent.md).]:key: ' \
    '(-k --key)--key[Config key (runtime keys only; see docs/agent.md).]:key: ' \
    '(-v --value)-v[New value.]:value: ' \
    '(-v --value)--value[New value.]:value: ' \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS); not...]:controllerAddress: ' \
    '(-b --brokerAddr)-b[One broker'\''s address.]:brokerAddr: ' \
    '(-b --brokerAddr)--brokerAddr[One broker'\''s address.]:brokerAddr: ' \
    '(-c --clusterName)-c[Every replica of this cluster (found through -a).]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every replica of this cluster (found through -a).]:clusterName: ' \
    '(--reachable-only)--reachable-only[With -c: update the replicas that answer, skip the others.]' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateControllerConfig() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-k --key)-k[Config key, e.g. enableElectUncleanMaster.]:key: ' \
    '(-k --key)--key[Config key, e.g. enableElectUncleanMaster.]:key: ' \
    '(-v --value)-v[New value.]:value: ' \
    '(-v --value)--value[New value.]:value: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for each RPC.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateOrderConf() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-m --method)-m[put, get or delete.]:method: ' \
    '(-m --method)--method[put, get or delete.]:method: ' \
    '(-v --orderConf)-v[put: brokerName1:num;brokerName2:num (same num).]:orderConf: ' \
    '(-v --orderConf)--orderConf[put: brokerName1:num;brokerName2:num (same num).]:orderConf: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateSubGroup() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-g --groupName)-g[Subscription group name.]:groupName: ' \
    '(-g --groupName)--groupName[Subscription group name.]:groupName: ' \
    '(-c --clusterName)-c[Every broker set of this cluster serves it.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every broker set of this cluster serves it.]:clusterName: ' \
    '(-b --brokerName)-b[This broker set serves it.]:brokerName: ' \
    '(-b --brokerName)--brokerName[This broker set serves it.]:brokerName: ' \
    '(--consume-orderly)--consume-orderly[true: a FIFO (orderly) group \[new group: false\] (Java'\''s -o).]:consume-orderly: ' \
    '(-r --retryMaxTimes)-r[Redeliveries before the dead-letter topic \[new group: 16\].]:retryMaxTimes: ' \
    '(-r --retryMaxTimes)--retryMaxTimes[Redeliveries before the dead-letter topic \[new group: 16\].]:retryMaxTimes: ' \
    '(-q --groupRetryPolicy)-q[Java'\''s JSON:...]:groupRetryPolicy: ' \
    '(-q --groupRetryPolicy)--groupRetryPolicy[Java'\''s JSON:...]:groupRetryPolicy: ' \
    '(--consume-enable)--consume-enable[false stops the group'\''s consumption \[new group: true\] (Java'\''s -s).]:consume-enable: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateTopic() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-c --clusterName)-c[Every broker set of this cluster serves it.]:clusterName: ' \
    '(-c --clusterName)--clusterName[Every broker set of this cluster serves it.]:clusterName: ' \
    '(-b --brokerName)-b[This broker set serves it.]:brokerName: ' \
    '(-b --brokerName)--brokerName[This broker set serves it.]:brokerName: ' \
    '(-r --readQueueNums)-r[Read queues \[new topic: 8\].]:readQueueNums: ' \
    '(-r --readQueueNums)--readQueueNums[Read queues \[new topic: 8\].]:readQueueNums: ' \
    '(-w --writeQueueNums)-w[Write queues \[new topic: 8\].]:writeQueueNums: ' \
    '(-w --writeQueueNums)--writeQueueNums[Write queues \[new topic: 8\].]:writeQueueNums: ' \
    '(-p --perm)-p[2 (W), 4 (R) or 6 (RW) \[new topic: 6\].]:perm: ' \
    '(-p --perm)--perm[2 (W), 4 (R) or 6 (RW) \[new topic: 6\].]:perm: ' \
    '*--attributes[+message.type=NORMAL|FIFO|DELAY|TRANSACTION sets, -message.type removes...]:attributes: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__updateTopicPerm() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-t --topic)-t[Topic name.]:topic: ' \
    '(-t --topic)--topic[Topic name.]:topic: ' \
    '(-p --perm)-p[2 (W), 4 (R) or 6 (RW).]:perm: ' \
    '(-p --perm)--perm[2 (W), 4 (R) or 6 (RW).]:perm: ' \
    '(-c --clusterName)-c[The topic'\''s cluster.]:clusterName: ' \
    '(-c --clusterName)--clusterName[The topic'\''s cluster.]:clusterName: ' \
    '(-b --brokerName)-b[A broker set serving the topic.]:brokerName: ' \
    '(-b --brokerName)--brokerName[A broker set serving the topic.]:brokerName: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(--timeout)--timeout[Seconds allowed for the change.]:timeout: ' \
    '(-n --namesrvAddr)-n[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-n --namesrvAddr)--namesrvAddr[Name server addresses, as Java mqadmin scripts pass them: accepted and...]:namesrvAddr: ' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__wait() {
  local curcontext=$curcontext state state_descr line ret=1
  local -A opt_args
  _arguments -C \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]' \
    ': :->command' \
    '*:: :->argument' && ret=0
  case $state in
  (command)
    local -a commands=(
      'insync:Wait until a broker set has an alive master and at least N alive members in...'
      'master:Wait until a broker set has an alive master (optionally a different one, or...'
      'quorum:Wait until the controller group has a leader that is ready and holds a quorum.'
    )
    _describe -t commands 'mqadmin wait command' commands && ret=0
    ;;
  (argument)
    curcontext=${curcontext%:*:*}:mqadmin-wait-$words[1]:
    case $words[1] in
    (insync) _mqadmin__wait__insync && ret=0 ;;
    (master) _mqadmin__wait__master && ret=0 ;;
    (quorum) _mqadmin__wait__quorum && ret=0 ;;
    esac
    ;;
  esac
  return ret
}

_mqadmin__wait__insync() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-bn --brokerName)-bn[Broker set.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set.]:brokerName: ' \
    '(-n --members)-n[SyncStateSet size to reach (default: every replica the controller knows).]:members: ' \
    '(-n --members)--members[SyncStateSet size to reach (default: every replica the controller knows).]:members: ' \
    '(--timeout)--timeout[Seconds to wait in all (exit 3 after).]:timeout: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__wait__master() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-bn --brokerName)-bn[Broker set.]:brokerName: ' \
    '(-bn --brokerName)--brokerName[Broker set.]:brokerName: ' \
    '(--other-than)--other-than[...and it is not this broker id (the old master).]:other-than: ' \
    '(-b --brokerId)-b[...and it is this broker id.]:brokerId: ' \
    '(-b --brokerId)--brokerId[...and it is this broker id.]:brokerId: ' \
    '(--timeout)--timeout[Seconds to wait in all (exit 3 after).]:timeout: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

_mqadmin__wait__quorum() {
  _arguments \
    '(-a --controllerAddress)-a[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(-a --controllerAddress)--controllerAddress[Controller gRPC addresses, '\'';'\''-separated (env MQADMIN_CONTROLLERS).]:controllerAddress: ' \
    '(--timeout)--timeout[Seconds to wait in all (exit 3 after).]:timeout: ' \
    '(-o --output)-o[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-o --output)--output[table, json or legacy (the Java tool'\''s text).]:output:(table json legacy)' \
    '(-h --help)-h[Show this message and exit.]' \
    '(-h --help)--help[Show this message and exit.]'
}

# Autoloaded from $fpath this file is the body of _mqadmin; sourced (after compinit) it registers.
if [[ $funcstack[1] == _mqadmin ]]; then
  _mqadmin "$@"
else
  compdef _mqadmin mqadmin
fi
