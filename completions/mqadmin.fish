# fish completion for mqadmin, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

function __mqadmin_complete_path --description 'Print the mqadmin command path before the cursor'
    set -l path mqadmin
    set -l need 0
    set -l words (commandline -opc)
    set -e words[1]
    for word in $words
        if test $need -gt 0
            set need (math $need - 1)
            continue
        end
        switch $word
            case '-*'
                switch $path
                    case 'mqadmin'
                        contains -- $word --accessKey --secretKey --credentialsFile --tlsCaFile --tlsCertFile --tlsKeyFile; and set need 1
                    case 'mqadmin addBroker' 'mqadmin add-broker'
                        contains -- $word -c --brokerContainerAddr -b --brokerConfigPath -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' \
                        'mqadmin wipe-write-perm'
                        contains -- $word -a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin assignPreferredMaster' 'mqadmin transferMaster' 'mqadmin assign-preferred-master' \
                        'mqadmin transfer-master'
                        contains -- $word -a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --timeout -o --output -n --namesrvAddr; and set need 1
                    case 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' \
                        'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'
                        contains -- $word -a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'
                        contains -- $word -a --controllerAddress -bn --brokerName -b --brokerControllerIdsToClean -c --clusterName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'
                        contains -- $word -a --controllerAddress -s --srcGroup -d --destGroup -t --topic -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin clusterList' 'mqadmin cluster-list'
                        contains -- $word -a --controllerAddress -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr; and set need 1
                    case 'mqadmin consumeMessage' 'mqadmin consume-message'
                        contains -- $word -a --controllerAddress -t --topic -b -bn --brokerName -i -q --queueId --offset -c --MessageNumber --max --brokerAddr -g --consumerGroup --filter --invisible-time --wait -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin consumerConnection' 'mqadmin consumer-connection'
                        contains -- $word -g --consumerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin consumerProgress' 'mqadmin consumer-progress'
                        contains -- $word -a --controllerAddress -g --groupName -t --topic -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin consumerStatus' 'mqadmin consumer-status'
                        contains -- $word -g --consumerGroup -i --clientId -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'
                        contains -- $word -a --controllerAddress -c --clusterName -g --groupName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin deleteTopic' 'mqadmin delete-topic'
                        contains -- $word -a --controllerAddress -c --clusterName -t --topic -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin electMaster' 'mqadmin elect-master'
                        contains -- $word -a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin epochs collect'
                        contains -- $word --out --fleet -a --controllerAddress -c --cluster-name --clusterName --from-stores -o --output --timeout; and set need 1
                    case 'mqadmin epochs report'
                        contains -- $word --input --master --remote --since --top --out --conf -o --output; and set need 1
                    case 'mqadmin epochs serve'
                        contains -- $word --port --master --conf --start-timeout -o --output; and set need 1
                    case 'mqadmin epochs synth'
                        contains -- $word --out --clusters --sets --replicas --epochs --seed --snapshots -o --output; and set need 1
                    case 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' \
                        'mqadmin get-sync-state-set'
                        contains -- $word -a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr; and set need 1
                    case 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'
                        contains -- $word -a --controllerAddress -g --groupName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' \
                        'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'
                        contains -- $word -a --controllerAddress -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin haStatus' 'mqadmin ha-status'
                        contains -- $word -a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr; and set need 1
                    case 'mqadmin listBrokers' 'mqadmin list-brokers'
                        contains -- $word -c --brokerContainerAddr -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin printMsg' 'mqadmin print-msg'
                        contains -- $word -a --controllerAddress -t --topic -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -d --printBody -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'
                        contains -- $word -a --controllerAddress -t --topic -bn --brokerName -i --queueId -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -p --print -d --printBody -f --calculate --brokerAddr --body-format -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin producerConnection' 'mqadmin producer-connection'
                        contains -- $word -t --topic -g --producerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin queryCq' 'mqadmin query-cq'
                        contains -- $word -a --controllerAddress -t --topic -q --queue -i --index -c --count -b --brokerAddr -bn --brokerName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'
                        contains -- $word -a --controllerAddress -i --msgId --brokerAddr --body-format -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'
                        contains -- $word -a --controllerAddress -t --topic -k --msgKey -b --beginTimestamp -e --endTimestamp -m --maxNum -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'
                        contains -- $word -a --controllerAddress -t --topic -b --brokerName -i --queueId -o --offset --brokerAddr --body-format --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'
                        contains -- $word -a --controllerAddress -i --msgId -t --topic -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin removeBroker' 'mqadmin remove-broker'
                        contains -- $word -c --brokerContainerAddr -b --brokerIdentity -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'
                        contains -- $word -b --brokerAddr --offset -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'
                        contains -- $word -a --controllerAddress -g --groupName -t --topic -b --brokerName -i -q --queueId --offset -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'
                        contains -- $word -a --controllerAddress -g --groupName -t --topic -s --timestamp -f --force -b --brokerName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin sandbox down' 'mqadmin sandbox start' 'mqadmin sandbox status' \
                        'mqadmin sandbox stop'
                        contains -- $word --dir -o --output; and set need 1
                    case 'mqadmin sandbox kill'
                        contains -- $word --dir --signal -bn --brokerName -o --output; and set need 1
                    case 'mqadmin sandbox up'
                        contains -- $word --dir --controllers --broker-sets --replicas --cluster-name --broker-conf --controller-conf --timeout -o --output; and set need 1
                    case 'mqadmin sendMessage' 'mqadmin send-message'
                        contains -- $word -a --controllerAddress -t --topic -p --body -k --key --keys -c --tags --message-group --property -b -bn --broker --brokerName -i -q --qid --queueId --count --deliverTime --delay --transaction -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'
                        contains -- $word -a --controllerAddress -g --groupName -t --topic -f --force -c --cluster -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin statsAll' 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' \
                        'mqadmin stats-all' 'mqadmin topic-cluster-list' 'mqadmin topic-route' \
                        'mqadmin topic-status'
                        contains -- $word -a --controllerAddress -t --topic -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin topicList' 'mqadmin topic-list'
                        contains -- $word -a --controllerAddress -c --clusterName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin transactionStatus' 'mqadmin transaction-status'
                        contains -- $word -a --controllerAddress -t --topic -b -bn --brokerName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'
                        contains -- $word -k --key -v --value -a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'
                        contains -- $word -a --controllerAddress -k --key -v --value -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateOrderConf' 'mqadmin update-order-conf'
                        contains -- $word -a --controllerAddress -t --topic -m --method -v --orderConf -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateSubGroup' 'mqadmin update-sub-group'
                        contains -- $word -a --controllerAddress -g --groupName -c --clusterName -b --brokerName --consume-orderly -r --retryMaxTimes -q --groupRetryPolicy --consume-enable -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateTopic' 'mqadmin update-topic'
                        contains -- $word -a --controllerAddress -t --topic -c --clusterName -b --brokerName -r --readQueueNums -w --writeQueueNums -p --perm --attributes -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'
                        contains -- $word -a --controllerAddress -t --topic -p --perm -c --clusterName -b --brokerName -o --output --timeout -n --namesrvAddr; and set need 1
                    case 'mqadmin wait insync'
                        contains -- $word -a --controllerAddress -bn --brokerName -n --members --timeout -o --output; and set need 1
                    case 'mqadmin wait master'
                        contains -- $word -a --controllerAddress -bn --brokerName --other-than -b --brokerId --timeout -o --output; and set need 1
                    case 'mqadmin wait quorum'
                        contains -- $word -a --controllerAddress --timeout -o --output; and set need 1
                end
            case '*'
                switch "$path|$word"
                    case 'mqadmin|addBroker' 'mqadmin|addWritePerm' 'mqadmin|assignPreferredMaster' \
                        'mqadmin|brokerStatus' 'mqadmin|cleanBrokerMetadata' 'mqadmin|cloneGroupOffset' \
                        'mqadmin|clusterList' 'mqadmin|consumeMessage' 'mqadmin|consumerConnection' \
                        'mqadmin|consumerProgress' 'mqadmin|consumerStatus' 'mqadmin|deleteExpiredCommitLog' \
                        'mqadmin|deleteSubGroup' 'mqadmin|deleteTopic' 'mqadmin|electMaster' 'mqadmin|epochs' \
                        'mqadmin|getBrokerConfig' 'mqadmin|getBrokerEpoch' 'mqadmin|getConsumerConfig' \
                        'mqadmin|getControllerConfig' 'mqadmin|getControllerMetaData' 'mqadmin|getSyncStateSet' \
                        'mqadmin|haStatus' 'mqadmin|listBrokers' 'mqadmin|printMsg' 'mqadmin|printMsgByQueue' \
                        'mqadmin|producerConnection' 'mqadmin|queryCq' 'mqadmin|queryMsgById' \
                        'mqadmin|queryMsgByKey' 'mqadmin|queryMsgByOffset' 'mqadmin|queryMsgByUniqueKey' \
                        'mqadmin|removeBroker' 'mqadmin|resetMasterFlushOffset' 'mqadmin|resetOffsetByOffset' \
                        'mqadmin|resetOffsetByTime' 'mqadmin|sandbox' 'mqadmin|sendMessage' \
                        'mqadmin|skipAccumulatedMessage' 'mqadmin|statsAll' 'mqadmin|topicClusterList' \
                        'mqadmin|topicList' 'mqadmin|topicRoute' 'mqadmin|topicStatus' 'mqadmin|transactionStatus' \
                        'mqadmin|transferMaster' 'mqadmin|updateBrokerConfig' 'mqadmin|updateControllerConfig' \
                        'mqadmin|updateOrderConf' 'mqadmin|updateSubGroup' 'mqadmin|updateTopic' \
                        'mqadmin|updateTopicPerm' 'mqadmin|wait' 'mqadmin|wipeWritePerm' 'mqadmin|add-broker' \
                        'mqadmin|add-write-perm' 'mqadmin|assign-preferred-master' 'mqadmin|broker-status' \
                        'mqadmin|clean-broker-metadata' 'mqadmin|clone-group-offset' 'mqadmin|cluster-list' \
                        'mqadmin|consume-message' 'mqadmin|consumer-connection' 'mqadmin|consumer-progress' \
                        'mqadmin|consumer-status' 'mqadmin|delete-expired-commit-log' 'mqadmin|delete-sub-group' \
                        'mqadmin|delete-topic' 'mqadmin|elect-master' 'mqadmin|get-broker-config' \
                        'mqadmin|get-broker-epoch' 'mqadmin|get-consumer-config' 'mqadmin|get-controller-config' \
                        'mqadmin|get-controller-meta-data' 'mqadmin|get-sync-state-set' 'mqadmin|ha-status' \
                        'mqadmin|list-brokers' 'mqadmin|print-msg' 'mqadmin|print-msg-by-queue' \
                        'mqadmin|producer-connection' 'mqadmin|query-cq' 'mqadmin|query-msg-by-id' \
                        'mqadmin|query-msg-by-key' 'mqadmin|query-msg-by-offset' 'mqadmin|query-msg-by-unique-key' \
                        'mqadmin|remove-broker' 'mqadmin|reset-master-flush-offset' 'mqadmin|reset-offset-by-offset' \
                        'mqadmin|reset-offset-by-time' 'mqadmin|send-message' 'mqadmin|skip-accumulated-message' \
                        'mqadmin|stats-all' 'mqadmin|topic-cluster-list' 'mqadmin|topic-list' 'mqadmin|topic-route' \
                        'mqadmin|topic-status' 'mqadmin|transaction-status' 'mqadmin|transfer-master' \
                        'mqadmin|update-broker-config' 'mqadmin|update-controller-config' \
                        'mqadmin|update-order-conf' 'mqadmin|update-sub-group' 'mqadmin|update-topic' \
                        'mqadmin|update-topic-perm' 'mqadmin|wipe-write-perm' 'mqadmin epochs|collect' \
                        'mqadmin epochs|report' 'mqadmin epochs|serve' 'mqadmin epochs|synth' 'mqadmin sandbox|down' \
                        'mqadmin sandbox|kill' 'mqadmin sandbox|start' 'mqadmin sandbox|status' \
                        'mqadmin sandbox|stop' 'mqadmin sandbox|up' 'mqadmin wait|insync' 'mqadmin wait|master' \
                        'mqadmin wait|quorum'
                        set path "$path $word"
                end
        end
    end
    echo $path
end

function __mqadmin_complete_at --description 'Is the mqadmin command path one of the arguments?'
    contains -- (__mqadmin_complete_path) $argv
end

complete -c mqadmin -f

# mqadmin
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a addBroker -d 'Start a broker in a running agent from a config file on its host; it is...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a addWritePerm -d 'Give a broker set its write permission back after wipeWritePerm: it accepts...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a assignPreferredMaster -d 'Record a broker set\'s preferred master (kept by the controllers; elections...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a brokerStatus -d 'A broker\'s runtime figures (-b), or every replica\'s of a cluster (-c):...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a cleanBrokerMetadata -d 'Remove dead brokers (with -l, alive ones too) from a broker set\'s controller...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a cloneGroupOffset -d 'Give a group the committed offsets another group has on a topic, queue by...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a clusterList -d 'List every cluster, broker set and replica: role, address, alive, in sync,...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a consumeMessage -d 'Read confirmed messages of a topic from a broker set\'s master (or one...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a consumerConnection -d 'The clients of a consumer group connected through the access points: id,...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a consumerProgress -d 'A group\'s progress per queue on each broker set\'s master: broker and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a consumerStatus -d 'A consumer group\'s clients as the access points know them, and whether they...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a deleteExpiredCommitLog -d 'Run retention now on a broker (-b) or on every replica of a cluster (-c), as...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a deleteSubGroup -d 'Delete a subscription group\'s metadata; an unknown group is a no-op.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a deleteTopic -d 'Delete a topic\'s metadata (its messages stay until retention removes them);...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a electMaster -d 'Make a broker master (admin-designated election; it must be alive and in the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a epochs -d 'Fleet analytics: collect epoch caches across clusters, report on them with...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getBrokerConfig -d 'Show a broker\'s effective configuration (-b), or that of every replica of a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getBrokerEpoch -d 'Show every replica\'s epoch entries and offsets (all sets when -b/-c are...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getConsumerConfig -d 'A subscription group\'s config (exit 1: no such group).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getControllerConfig -d 'Show the effective configuration of every listed controller node, and the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getControllerMetaData -d 'Show the controller group: leader, peers, and each node\'s Raft health (term,...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a getSyncStateSet -d 'Show master, epochs, and in-sync / not-in-sync replicas of broker sets (all...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a haStatus -d 'Show HA runtime status: a master\'s slaves (ack offset, lag, in sync), or a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a listBrokers -d 'List the brokers an agent hosts, with role, epoch and any start-up error.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a printMsg -d 'Print the confirmed messages of every queue of a topic stored within -b..-e...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a printMsgByQueue -d 'Print a range of one queue, stored within -b..-e (Java\'s printMsgByQueue;...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a producerConnection -d 'The producers that announced a topic (their settings\' topics) to an access...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a queryCq -d 'Show consume-queue entries of one queue: where each message lies in the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a queryMsgById -d 'Show messages by offset message id (store host and commit-log offset), from...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a queryMsgByKey -d 'Find messages by key through the message index, newest first (Java\'s...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a queryMsgByOffset -d 'Show the message at a queue offset (Java\'s queryMsgByOffset; -o is the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a queryMsgByUniqueKey -d 'Find a message by its unique key (the client\'s message id) through the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a removeBroker -d 'Stop a broker hosted by an agent and forget it (its store stays on disk).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a resetMasterFlushOffset -d 'Raise a master\'s flush offset, i.e. its confirmOffset...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a resetOffsetByOffset -d 'Set a group\'s offset in one queue (the next message it receives there); its...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a resetOffsetByTime -d 'Move a group\'s offsets on a topic to the first message stored at or after a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a sandbox -d 'Run a real local cluster on loopback (controllers and broker agents) to try...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a sendMessage -d 'Send messages to the master of a broker set (or round robin over the masters...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a skipAccumulatedMessage -d 'Skip every message a group has not consumed on a topic: its offsets move to...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a statsAll -d 'Per topic and consumer group: accumulation (messages not yet consumed),...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a topicClusterList -d 'The cluster a topic belongs to (Java lists every cluster of its brokers; a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a topicList -d 'List the topics the controllers keep (of one cluster with -c), with their...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a topicRoute -d 'Where a topic is served: per broker set its queues, perm and current master...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a topicStatus -d 'Per broker set serving a topic, each queue\'s min and max offset on the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a transactionStatus -d 'List the open transactions of a topic: each one\'s id, message id, age and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a transferMaster -d 'Move a broker set\'s master role to an in-sync replica without losing or...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateBrokerConfig -d 'Change a runtime key of a broker (-b) or of every replica of a cluster (-c).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateControllerConfig -d 'Set a runtime config key for the whole controller group (through the leader...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateOrderConf -d 'Make a topic ordered on the broker sets named, or show or remove that...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateSubGroup -d 'Create a subscription group or change it (kept by the controllers; options...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateTopic -d 'Create a topic or change it (kept by the controllers; options left out keep...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a updateTopicPerm -d 'Change a topic\'s permission: 2 (W), 4 (R) or 6 (RW), on every broker set...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a wait -d 'Block until a broker set has a master, a full SyncStateSet, or the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -a wipeWritePerm -d 'Take a broker set\'s write permission away (the drain step before...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l accessKey -x -d 'Access key of the admin credential.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l secretKey -x -d 'Its secret key (visible in ps: prefer the env or file).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l credentialsFile -r -F -d 'Credentials file, mode 0600 [~/.mqadmin/credentials].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l tls -d 'Connect with TLS (implied by --tlsCaFile/--tlsCertFile).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l tlsCaFile -r -F -d 'CA certificate(s) to trust servers.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l tlsCertFile -r -F -d 'Client certificate (mTLS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l tlsKeyFile -r -F -d 'The client certificate\'s key.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -l version -d 'Print the version and exit.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin'" -s h -l help -d 'Show this message and exit.'

# mqadmin addBroker
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -s c -l brokerContainerAddr -x -d 'The agent\'s container address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -s b -l brokerConfigPath -r -F -d 'Broker config file, a path on the agent\'s host.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addBroker' 'mqadmin add-broker'" -s h -l help -d 'Show this message and exit.'

# mqadmin addWritePerm
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s b -l brokerName -x -d 'The broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s c -l clusterName -x -d 'The set\'s cluster (checked; ours, not Java\'s).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin addWritePerm' 'mqadmin wipeWritePerm' 'mqadmin add-write-perm' 'mqadmin wipe-write-perm'" -s h -l help -d 'Show this message and exit.'

# mqadmin assignPreferredMaster
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s c -l clusterName -x -d 'Cluster of the broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -o bn -l brokerName -x -d 'Broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s b -l brokerId -x -d 'Broker id to prefer as master.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -l clear -d 'Remove the set\'s preferred master instead.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -l wait -d 'Then wait until that broker is the alive master (exit 3 on timeout).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -l timeout -x -d 'Seconds allowed in all, the wait included.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin assignPreferredMaster' 'mqadmin assign-preferred-master'" -s h -l help -d 'Show this message and exit.'

# mqadmin brokerStatus
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s c -l clusterName -x -d 'Every replica of this cluster (found through -a).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin brokerStatus' 'mqadmin deleteExpiredCommitLog' 'mqadmin getBrokerConfig' 'mqadmin broker-status' 'mqadmin delete-expired-commit-log' 'mqadmin get-broker-config'" -s h -l help -d 'Show this message and exit.'

# mqadmin cleanBrokerMetadata
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -o bn -l brokerName -x -d 'Broker set to clean.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s b -l brokerControllerIdsToClean -x -d 'Ids to remove, e.g. \'1;2\' (or --wholeSet).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -l wholeSet -d 'Remove the whole broker set instead of listed ids (-b).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s c -l clusterName -x -d 'Cluster of the set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s l -l cleanLivingBroker -d 'Also remove brokers that are still alive.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cleanBrokerMetadata' 'mqadmin clean-broker-metadata'" -s h -l help -d 'Show this message and exit.'

# mqadmin cloneGroupOffset
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s s -l srcGroup -x -d 'The group to copy from.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s d -l destGroup -x -d 'The group to copy to.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin cloneGroupOffset' 'mqadmin clone-group-offset'" -s h -l help -d 'Show this message and exit.'

# mqadmin clusterList
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s c -l clusterName -x -d 'Every set of a cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s i -l interval -x -d 'Repeat every N seconds until Ctrl-C (or --count runs).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -l count -x -d 'With -i: stop after this many runs.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin clusterList' 'mqadmin cluster-list'" -s h -l help -d 'Show this message and exit.'

# mqadmin consumeMessage
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s b -o bn -l brokerName -x -d 'Broker set to read from (with -g: default every set serving the topic).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s i -s q -l queueId -x -d 'One queue (default: every queue).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l offset -x -d 'Queue offset to start at (Java\'s -o) [0]; not with -g.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s c -l MessageNumber -l max -x -d 'At most this many messages in all.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l brokerAddr -x -d 'Read from this replica instead of the master; not with -g.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s g -l consumerGroup -x -d 'Receive and ack as this subscription group (POP) instead of reading raw.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l filter -x -d 'With -g: tag expression, \'*\' or \'TagA || TagB\' [*].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l invisible-time -x -d 'With -g: ms a received message stays invisible to the group unless acked...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l wait -x -d 'With -g: ms each receive waits for a message when none is visible [1000].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l no-ack -d 'With -g: receive only; the messages come back after --invisible-time.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumeMessage' 'mqadmin consume-message'" -s h -l help -d 'Show this message and exit.'

# mqadmin consumerConnection
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s g -l consumerGroup -x -d 'The consumer group.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerConnection' 'mqadmin consumer-connection'" -s h -l help -d 'Show this message and exit.'

# mqadmin consumerProgress
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s t -l topic -x -d 'Only this topic (default: every topic the group consumed).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerProgress' 'mqadmin consumer-progress'" -s h -l help -d 'Show this message and exit.'

# mqadmin consumerStatus
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s g -l consumerGroup -x -d 'The consumer group.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s i -l clientId -x -d 'Only this client.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin consumerStatus' 'mqadmin consumer-status'" -s h -l help -d 'Show this message and exit.'

# mqadmin deleteSubGroup
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s c -l clusterName -x -d 'Cluster it belongs to.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteSubGroup' 'mqadmin delete-sub-group'" -s h -l help -d 'Show this message and exit.'

# mqadmin deleteTopic
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s c -l clusterName -x -d 'Cluster it belongs to.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin deleteTopic' 'mqadmin delete-topic'" -s h -l help -d 'Show this message and exit.'

# mqadmin electMaster
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s c -l clusterName -x -d 'Cluster of the broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -o bn -l brokerName -x -d 'Broker set to elect in.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s b -l brokerId -x -d 'Broker id that should become master.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin electMaster' 'mqadmin elect-master'" -s h -l help -d 'Show this message and exit.'

# mqadmin epochs
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs'" -a collect -d 'Append one snapshot of every cluster\'s SyncStateSet data and every replica\'s...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs'" -a report -d 'Aggregate the dataset with PySpark: masters, lag, master changes,...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs'" -a serve -d 'Run a Spark Connect server for \'epochs report --remote\' until Ctrl-C or SIGTERM.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs'" -a synth -d 'Write a synthetic fleet with injected anomalies of every kind in known...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs'" -s h -l help -d 'Show this message and exit.'

# mqadmin epochs collect
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -l out -r -F -d 'Dataset directory to append the snapshot to (created).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -l fleet -r -F -d 'JSON file: cluster name → controller addresses.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -s a -l controllerAddress -x -d 'Controllers of one cluster (with --cluster-name).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -s c -l cluster-name -l clusterName -x -d 'The cluster -a serves.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -l from-stores -r -F -d 'Read stopped brokers\' store directories instead (repeatable).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -l strict -d 'Exit 1 if any cluster or replica was unreachable.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs collect'" -s h -l help -d 'Show this message and exit.'

# mqadmin epochs report
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l input -r -F -d 'Dataset directory written by collect or synth.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l master -x -d 'Spark master URL (default local[*]: this machine, all cores).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l remote -x -d 'Spark Connect server to run on instead, sc://host:port (e.g. one \'mqadmin...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l since -x -d 'Ignore snapshots before this time (ISO-8601 or epoch ms).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l top -x -d 'Broker sets in each worst-N list.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l out -r -F -d 'Also write the report tables as Parquet here.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l details -d 'Include every set and replica in the output.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -l conf -x -d 'Spark setting KEY=VALUE, repeatable, as spark-submit --conf (e.g....'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs report'" -s h -l help -d 'Show this message and exit.'

# mqadmin epochs serve
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -l port -x -d 'Port on 127.0.0.1 (0: any free one).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -l master -x -d 'Spark master the server runs its jobs on (default: this machine).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -l conf -x -d 'Server Spark setting KEY=VALUE, repeatable (e.g. spark.driver.memory=3g for...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -l start-timeout -x -d 'Seconds to wait for the server to listen.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs serve'" -s h -l help -d 'Show this message and exit.'

# mqadmin epochs synth
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l out -r -F -d 'Dataset directory to append the snapshot to (created).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l clusters -x -d 'Clusters in the fleet.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l sets -x -d 'Broker sets per cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l replicas -x -d 'Replicas per broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l epochs -x -d 'Epoch entries per replica.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l seed -x -d 'Same seed, same fleet.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -l snapshots -x -d 'Snapshots to write (one minute apart).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin epochs synth'" -s h -l help -d 'Show this message and exit.'

# mqadmin getBrokerEpoch
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s b -l brokerName -x -d 'Broker set name(s).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s c -l clusterName -x -d 'Every set of a cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s i -l interval -x -d 'Repeat every N seconds until Ctrl-C (or --count runs).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -l count -x -d 'With -i: stop after this many runs.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getBrokerEpoch' 'mqadmin getSyncStateSet' 'mqadmin get-broker-epoch' 'mqadmin get-sync-state-set'" -s h -l help -d 'Show this message and exit.'

# mqadmin getConsumerConfig
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getConsumerConfig' 'mqadmin get-consumer-config'" -s h -l help -d 'Show this message and exit.'

# mqadmin getControllerConfig
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' 'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' 'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' 'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' 'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin getControllerConfig' 'mqadmin getControllerMetaData' 'mqadmin get-controller-config' 'mqadmin get-controller-meta-data'" -s h -l help -d 'Show this message and exit.'

# mqadmin haStatus
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s c -l clusterName -x -d 'Masters of a cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s i -l interval -x -d 'Repeat every N seconds until Ctrl-C (or --count runs).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -l count -x -d 'With -i: stop after this many runs.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin haStatus' 'mqadmin ha-status'" -s h -l help -d 'Show this message and exit.'

# mqadmin listBrokers
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin listBrokers' 'mqadmin list-brokers'" -s c -l brokerContainerAddr -x -d 'The agent\'s container address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin listBrokers' 'mqadmin list-brokers'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin listBrokers' 'mqadmin list-brokers'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin listBrokers' 'mqadmin list-brokers'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin listBrokers' 'mqadmin list-brokers'" -s h -l help -d 'Show this message and exit.'

# mqadmin printMsg
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s c -l charsetName -x -d 'Charset of text bodies.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s s -l subExpression -x -d 'Tag expression (\'*\', \'A || B\').'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s b -l beginTimestamp -x -d 'Stored at or after: epoch ms, \'now\', or yyyy-MM-dd#HH:mm:ss:SSS.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s e -l endTimestamp -x -d 'Stored at or before (as -b).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s d -l printBody -x -d 'true or false.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -o bn -l brokerName -x -d 'Only this broker set (with --brokerAddr: the set it serves).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsg' 'mqadmin print-msg'" -s h -l help -d 'Show this message and exit.'

# mqadmin printMsgByQueue
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -o bn -l brokerName -x -d 'Broker set (Java\'s -a).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s i -l queueId -x -d 'Queue id.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s c -l charsetName -x -d 'Charset of text bodies.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s s -l subExpression -x -d 'Tag expression (\'*\', \'A || B\').'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s b -l beginTimestamp -x -d 'Stored at or after: epoch ms, \'now\', or yyyy-MM-dd#HH:mm:ss:SSS.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s e -l endTimestamp -x -d 'Stored at or before (as -b).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s p -l print -x -d 'Print the messages: true or false.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s d -l printBody -x -d 'Print bodies: true or false.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s f -l calculate -x -d 'Count messages by tag: true or false.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin printMsgByQueue' 'mqadmin print-msg-by-queue'" -s h -l help -d 'Show this message and exit.'

# mqadmin producerConnection
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s t -l topic -x -d 'The topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s g -l producerGroup -x -d 'Accepted for Java scripts: RocketMQ 5 producers have no group.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin producerConnection' 'mqadmin producer-connection'" -s h -l help -d 'Show this message and exit.'

# mqadmin queryCq
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s q -l queue -x -d 'Queue id.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s i -l index -x -d 'First queue offset.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s c -l count -x -d 'How many entries.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s b -l brokerAddr -x -d 'Ask this one replica (default: the set\'s master).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -o bn -l brokerName -x -d 'Only this broker set (with --brokerAddr: the set it serves).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryCq' 'mqadmin query-cq'" -s h -l help -d 'Show this message and exit.'

# mqadmin queryMsgById
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -s i -l msgId -x -d 'Offset message id(s) (offsetMsgId), \',\'-separated.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgById' 'mqadmin query-msg-by-id'" -s h -l help -d 'Show this message and exit.'

# mqadmin queryMsgByKey
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s k -l msgKey -x -d 'A message key (one word of KEYS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s b -l beginTimestamp -x -d 'Stored at or after: epoch ms, \'now\', or yyyy-MM-dd#HH:mm:ss:SSS.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s e -l endTimestamp -x -d 'Stored at or before (as -b).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s m -l maxNum -x -d 'At most this many per broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -o bn -l brokerName -x -d 'Only this broker set (with --brokerAddr: the set it serves).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByKey' 'mqadmin query-msg-by-key'" -s h -l help -d 'Show this message and exit.'

# mqadmin queryMsgByOffset
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s b -l brokerName -x -d 'Broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s i -l queueId -x -d 'Queue id.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s o -l offset -x -d 'Queue offset.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -l output -x -a 'table json legacy' -d 'table, json or legacy.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByOffset' 'mqadmin query-msg-by-offset'" -s h -l help -d 'Show this message and exit.'

# mqadmin queryMsgByUniqueKey
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s i -l msgId -x -d 'The message id a client gave it (UNIQ_KEY).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -l showAll -d 'Every message found (a resent id), not the first.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -o bn -l brokerName -x -d 'Only this broker set (with --brokerAddr: the set it serves).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -l brokerAddr -x -d 'Ask this one replica (any role) instead of the masters.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -l body-format -x -d 'How bodies print: text, hex or base64.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin queryMsgByUniqueKey' 'mqadmin query-msg-by-unique-key'" -s h -l help -d 'Show this message and exit.'

# mqadmin removeBroker
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -s c -l brokerContainerAddr -x -d 'The agent\'s container address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -s b -l brokerIdentity -x -d 'clusterName:brokerName:brokerId.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin removeBroker' 'mqadmin remove-broker'" -s h -l help -d 'Show this message and exit.'

# mqadmin resetMasterFlushOffset
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -s b -l brokerAddr -x -d 'The master broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -l offset -x -d 'New flush (confirm) offset; Java\'s -o.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetMasterFlushOffset' 'mqadmin reset-master-flush-offset'" -s h -l help -d 'Show this message and exit.'

# mqadmin resetOffsetByOffset
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s b -l brokerName -x -d 'The broker set of the queue.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s i -s q -l queueId -x -d 'The queue.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -l offset -x -d 'The group\'s next offset in the queue (Java\'s -o).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByOffset' 'mqadmin reset-offset-by-offset'" -s h -l help -d 'Show this message and exit.'

# mqadmin resetOffsetByTime
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s s -l timestamp -x -d 'Epoch ms, \'now\', or yyyy-MM-dd#HH:mm:ss:SSS (this host\'s zone).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s f -l force -x -d 'Java\'s switch: only true (its default) is supported.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s b -l brokerName -x -d 'Only this broker set (default: every set).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin resetOffsetByTime' 'mqadmin reset-offset-by-time'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a down -d 'Stop exactly the processes the sandbox started (by pid); files stay for a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a kill -d 'Send a signal to one sandbox process, for failover drills (\'master\': the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a start -d 'Start one stopped sandbox process again (same ports, same data).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a status -d 'Show the sandbox\'s processes, addresses, pids and logs.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a stop -d 'Stop one sandbox process cleanly (SIGTERM, then SIGKILL after 15 s), e.g....'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -a up -d 'Start the sandbox and wait until every broker set has a master and a full...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox down
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox down'" -l dir -x -a '(__fish_complete_directories)' -d 'Sandbox directory (env MQADMIN_SANDBOX_DIR).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox down'" -l purge -d 'Also delete the sandbox directory (data, logs).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox down'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox down'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox kill
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox kill'" -l dir -x -a '(__fish_complete_directories)' -d 'Sandbox directory (env MQADMIN_SANDBOX_DIR).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox kill'" -l signal -x -d 'KILL, TERM, STOP or CONT.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox kill'" -o bn -l brokerName -x -d 'With \'master\': which set (default: the first).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox kill'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox kill'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox start
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox start' 'mqadmin sandbox stop'" -l dir -x -a '(__fish_complete_directories)' -d 'Sandbox directory (env MQADMIN_SANDBOX_DIR).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox start' 'mqadmin sandbox stop'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox start' 'mqadmin sandbox stop'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox status
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox status'" -l dir -x -a '(__fish_complete_directories)' -d 'Sandbox directory (env MQADMIN_SANDBOX_DIR).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox status'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox status'" -s h -l help -d 'Show this message and exit.'

# mqadmin sandbox up
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l dir -x -a '(__fish_complete_directories)' -d 'Sandbox directory (env MQADMIN_SANDBOX_DIR).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l controllers -x -d 'Controller nodes: 1, 3 or 5.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l broker-sets -x -d 'Broker sets (broker-a, broker-b, ...); 0 for controllers only.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l replicas -x -d 'Replicas per set = agents (aK hosts replica K).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l cluster-name -x -d 'Cluster of every set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l broker-conf -x -d 'Extra broker key=value (repeatable).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l controller-conf -x -d 'Extra controller key=value (repeatable).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l timeout -x -d 'Seconds to wait until everything serves.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -l secure -d 'TLS (client certificates required), credentials and an encrypted Raft.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sandbox up'" -s h -l help -d 'Show this message and exit.'

# mqadmin sendMessage
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s t -l topic -x -d 'Topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s p -l body -x -d 'Message body; \'{i}\' is replaced by the message\'s index.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s k -l key -l keys -x -d 'Message keys (property KEYS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s c -l tags -x -d 'Message tag (property TAGS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l message-group -x -d 'Message group (property __SHARDINGKEY): without -q the broker hashes it to...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l property -x -d 'A user property KEY=VALUE (repeatable).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s b -o bn -l broker -l brokerName -x -d 'Broker set (default: round robin over the masters of the sets serving the...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s i -s q -l qid -l queueId -x -d 'Queue id (default: the broker picks).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l count -x -d 'How many messages to send.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l deliverTime -x -d 'A delayed message: delivered at this time (ms since the epoch; property...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l delay -x -d 'A delayed message: delivered this many seconds from now.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l transaction -x -a 'commit rollback check' -d 'A transactional message (the topic\'s message.type TRANSACTION): stored as a...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin sendMessage' 'mqadmin send-message'" -s h -l help -d 'Show this message and exit.'

# mqadmin skipAccumulatedMessage
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s f -l force -x -d 'Java\'s switch: only true (its default).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s c -l cluster -x -d 'The topic\'s cluster (checked).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin skipAccumulatedMessage' 'mqadmin skip-accumulated-message'" -s h -l help -d 'Show this message and exit.'

# mqadmin statsAll
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -s t -l topic -x -d 'Only this topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -l activeTopic -d 'Only rows with messages in or out (Java\'s -a).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin statsAll' 'mqadmin stats-all'" -s h -l help -d 'Show this message and exit.'

# mqadmin topicClusterList
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicClusterList' 'mqadmin topicRoute' 'mqadmin topicStatus' 'mqadmin topic-cluster-list' 'mqadmin topic-route' 'mqadmin topic-status'" -s h -l help -d 'Show this message and exit.'

# mqadmin topicList
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -s c -l clusterName -x -d 'Every set of a cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin topicList' 'mqadmin topic-list'" -s h -l help -d 'Show this message and exit.'

# mqadmin transactionStatus
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s t -l topic -x -d 'Topic (message.type TRANSACTION).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s b -o bn -l brokerName -x -d 'One broker set (default: every set).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transactionStatus' 'mqadmin transaction-status'" -s h -l help -d 'Show this message and exit.'

# mqadmin transferMaster
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s c -l clusterName -x -d 'Cluster of the broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -o bn -l brokerName -x -d 'Broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s b -l brokerId -x -d 'In-sync broker id to make master.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -l timeout -x -d 'Seconds the master may pause writes waiting for the target to catch up...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -l dry-run -d 'Show what would happen and whether it is allowed; change nothing.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin transferMaster' 'mqadmin transfer-master'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateBrokerConfig
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s k -l key -x -d 'Config key (runtime keys only; see docs/agent.md).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s v -l value -x -d 'New value.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS); not...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s b -l brokerAddr -x -d 'One broker\'s address.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s c -l clusterName -x -d 'Every replica of this cluster (found through -a).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -l reachable-only -d 'With -c: update the replicas that answer, skip the others.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateBrokerConfig' 'mqadmin update-broker-config'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateControllerConfig
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s k -l key -x -d 'Config key, e.g. enableElectUncleanMaster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s v -l value -x -d 'New value.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -l timeout -x -d 'Seconds allowed for each RPC.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateControllerConfig' 'mqadmin update-controller-config'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateOrderConf
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s m -l method -x -d 'put, get or delete.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s v -l orderConf -x -d 'put: brokerName1:num;brokerName2:num (same num).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateOrderConf' 'mqadmin update-order-conf'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateSubGroup
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s g -l groupName -x -d 'Subscription group name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s c -l clusterName -x -d 'Every broker set of this cluster serves it.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s b -l brokerName -x -d 'This broker set serves it.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -l consume-orderly -x -d 'true: a FIFO (orderly) group [new group: false] (Java\'s -o).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s r -l retryMaxTimes -x -d 'Redeliveries before the dead-letter topic [new group: 16].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s q -l groupRetryPolicy -x -d 'Java\'s JSON:...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -l consume-enable -x -d 'false stops the group\'s consumption [new group: true] (Java\'s -s).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateSubGroup' 'mqadmin update-sub-group'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateTopic
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s c -l clusterName -x -d 'Every broker set of this cluster serves it.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s b -l brokerName -x -d 'This broker set serves it.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s r -l readQueueNums -x -d 'Read queues [new topic: 8].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s w -l writeQueueNums -x -d 'Write queues [new topic: 8].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s p -l perm -x -d '2 (W), 4 (R) or 6 (RW) [new topic: 6].'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -l attributes -x -d '+message.type=NORMAL|FIFO|DELAY|TRANSACTION sets, -message.type removes...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopic' 'mqadmin update-topic'" -s h -l help -d 'Show this message and exit.'

# mqadmin updateTopicPerm
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s t -l topic -x -d 'Topic name.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s p -l perm -x -d '2 (W), 4 (R) or 6 (RW).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s c -l clusterName -x -d 'The topic\'s cluster.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s b -l brokerName -x -d 'A broker set serving the topic.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -l timeout -x -d 'Seconds allowed for the change.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s n -l namesrvAddr -x -d 'Name server addresses, as Java mqadmin scripts pass them: accepted and...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin updateTopicPerm' 'mqadmin update-topic-perm'" -s h -l help -d 'Show this message and exit.'

# mqadmin wait
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait'" -a insync -d 'Wait until a broker set has an alive master and at least N alive members in...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait'" -a master -d 'Wait until a broker set has an alive master (optionally a different one, or...'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait'" -a quorum -d 'Wait until the controller group has a leader that is ready and holds a quorum.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait'" -s h -l help -d 'Show this message and exit.'

# mqadmin wait insync
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -o bn -l brokerName -x -d 'Broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -s n -l members -x -d 'SyncStateSet size to reach (default: every replica the controller knows).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -l timeout -x -d 'Seconds to wait in all (exit 3 after).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait insync'" -s h -l help -d 'Show this message and exit.'

# mqadmin wait master
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -o bn -l brokerName -x -d 'Broker set.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -l other-than -x -d '...and it is not this broker id (the old master).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -s b -l brokerId -x -d '...and it is this broker id.'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -l timeout -x -d 'Seconds to wait in all (exit 3 after).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait master'" -s h -l help -d 'Show this message and exit.'

# mqadmin wait quorum
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait quorum'" -s a -l controllerAddress -x -d 'Controller gRPC addresses, \';\'-separated (env MQADMIN_CONTROLLERS).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait quorum'" -l timeout -x -d 'Seconds to wait in all (exit 3 after).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait quorum'" -s o -l output -x -a 'table json legacy' -d 'table, json or legacy (the Java tool\'s text).'
complete -c mqadmin -n "__mqadmin_complete_at 'mqadmin wait quorum'" -s h -l help -d 'Show this message and exit.'
