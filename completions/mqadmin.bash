# bash completion for mqadmin, generated from its CLI by `python -m mqadmin_py.completions`.
# Do not edit: run `make completions`. Static: nothing runs Python at TAB time. Install: completions/README.md.

_mqadmin() {
    local cur=${COMP_WORDS[COMP_CWORD]} path='' word='' opt='' prefix='' i need=0 pos=0
    local -a gen=()
    COMPREPLY=()
    # Walk the words before the cursor: sub-commands extend the path, options skip their values.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if ((need > 0)); then
            [[ $word == = ]] || need=$((need - 1))  # COMP_WORDBREAKS splits --opt=value into 3 words
            continue
        fi
        case $word in
        -*)
            opt=$word
            case $path in
            '')
                case $word in
                '--accessKey' | '--secretKey' | '--credentialsFile' | '--tlsCaFile' | '--tlsCertFile' |\
                    '--tlsKeyFile') need=1 ;;
                esac
                ;;
            'addBroker' | 'add-broker')
                case $word in
                '-c' | '--brokerContainerAddr' | '-b' | '--brokerConfigPath' | '-o' | '--output' | '--timeout' |\
                    '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'addWritePerm' | 'wipeWritePerm' | 'add-write-perm' | 'wipe-write-perm')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerName' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'assignPreferredMaster' | 'transferMaster' | 'assign-preferred-master' | 'transfer-master')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-bn' | '--brokerName' | '-b' |\
                    '--brokerId' | '--timeout' | '-o' | '--output' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'brokerStatus' | 'deleteExpiredCommitLog' | 'getBrokerConfig' | 'broker-status' |\
                'delete-expired-commit-log' | 'get-broker-config')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'cleanBrokerMetadata' | 'clean-broker-metadata')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '-b' | '--brokerControllerIdsToClean' |\
                    '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'cloneGroupOffset' | 'clone-group-offset')
                case $word in
                '-a' | '--controllerAddress' | '-s' | '--srcGroup' | '-d' | '--destGroup' | '-t' | '--topic' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'clusterList' | 'cluster-list')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-i' |\
                    '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumeMessage' | 'consume-message')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-b' | '-bn' | '--brokerName' | '-i' | '-q' |\
                    '--queueId' | '--offset' | '-c' | '--MessageNumber' | '--max' | '--brokerAddr' | '-g' |\
                    '--consumerGroup' | '--filter' | '--invisible-time' | '--wait' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumerConnection' | 'consumer-connection')
                case $word in
                '-g' | '--consumerGroup' | '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumerProgress' | 'consumer-progress')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'consumerStatus' | 'consumer-status')
                case $word in
                '-g' | '--consumerGroup' | '-i' | '--clientId' | '-a' | '--controllerAddress' | '-b' |\
                    '--brokerAddr' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'deleteSubGroup' | 'delete-sub-group')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-g' | '--groupName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'deleteTopic' | 'delete-topic')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-t' | '--topic' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'electMaster' | 'elect-master')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-bn' | '--brokerName' | '-b' |\
                    '--brokerId' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'epochs collect')
                case $word in
                '--out' | '--fleet' | '-a' | '--controllerAddress' | '-c' | '--cluster-name' | '--clusterName' |\
                    '--from-stores' | '-o' | '--output' | '--timeout') need=1 ;;
                esac
                ;;
            'epochs report')
                case $word in
                '--input' | '--master' | '--remote' | '--since' | '--top' | '--out' | '--conf' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'epochs serve')
                case $word in
                '--port' | '--master' | '--conf' | '--start-timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'epochs synth')
                case $word in
                '--out' | '--clusters' | '--sets' | '--replicas' | '--epochs' | '--seed' | '--snapshots' | '-o' |\
                    '--output') need=1 ;;
                esac
                ;;
            'getBrokerEpoch' | 'getSyncStateSet' | 'get-broker-epoch' | 'get-sync-state-set')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerName' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-i' | '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'getConsumerConfig' | 'get-consumer-config')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'getControllerConfig' | 'getControllerMetaData' | 'get-controller-config' | 'get-controller-meta-data')
                case $word in
                '-a' | '--controllerAddress' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'haStatus' | 'ha-status')
                case $word in
                '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' | '--clusterName' | '-o' | '--output' |\
                    '--timeout' | '-i' | '--interval' | '--count' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'listBrokers' | 'list-brokers')
                case $word in
                '-c' | '--brokerContainerAddr' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'printMsg' | 'print-msg')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-c' | '--charsetName' | '-s' | '--subExpression' |\
                    '-b' | '--beginTimestamp' | '-e' | '--endTimestamp' | '-d' | '--printBody' | '-bn' |\
                    '--brokerName' | '--brokerAddr' | '--body-format' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'printMsgByQueue' | 'print-msg-by-queue')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-bn' | '--brokerName' | '-i' | '--queueId' |\
                    '-c' | '--charsetName' | '-s' | '--subExpression' | '-b' | '--beginTimestamp' | '-e' |\
                    '--endTimestamp' | '-p' | '--print' | '-d' | '--printBody' | '-f' | '--calculate' |\
                    '--brokerAddr' | '--body-format' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'producerConnection' | 'producer-connection')
                case $word in
                '-t' | '--topic' | '-g' | '--producerGroup' | '-a' | '--controllerAddress' | '-b' | '--brokerAddr' |\
                    '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'queryCq' | 'query-cq')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-q' | '--queue' | '-i' | '--index' | '-c' |\
                    '--count' | '-b' | '--brokerAddr' | '-bn' | '--brokerName' | '-o' | '--output' | '--timeout' |\
                    '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'queryMsgById' | 'query-msg-by-id')
                case $word in
                '-a' | '--controllerAddress' | '-i' | '--msgId' | '--brokerAddr' | '--body-format' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'queryMsgByKey' | 'query-msg-by-key')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-k' | '--msgKey' | '-b' | '--beginTimestamp' |\
                    '-e' | '--endTimestamp' | '-m' | '--maxNum' | '-bn' | '--brokerName' | '--brokerAddr' |\
                    '--body-format' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'queryMsgByOffset' | 'query-msg-by-offset')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-b' | '--brokerName' | '-i' | '--queueId' | '-o' |\
                    '--offset' | '--brokerAddr' | '--body-format' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'queryMsgByUniqueKey' | 'query-msg-by-unique-key')
                case $word in
                '-a' | '--controllerAddress' | '-i' | '--msgId' | '-t' | '--topic' | '-bn' | '--brokerName' |\
                    '--brokerAddr' | '--body-format' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'removeBroker' | 'remove-broker')
                case $word in
                '-c' | '--brokerContainerAddr' | '-b' | '--brokerIdentity' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetMasterFlushOffset' | 'reset-master-flush-offset')
                case $word in
                '-b' | '--brokerAddr' | '--offset' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetOffsetByOffset' | 'reset-offset-by-offset')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-b' | '--brokerName' |\
                    '-i' | '-q' | '--queueId' | '--offset' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'resetOffsetByTime' | 'reset-offset-by-time')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-s' | '--timestamp' |\
                    '-f' | '--force' | '-b' | '--brokerName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'sandbox down' | 'sandbox start' | 'sandbox status' | 'sandbox stop')
                case $word in
                '--dir' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sandbox kill')
                case $word in
                '--dir' | '--signal' | '-bn' | '--brokerName' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sandbox up')
                case $word in
                '--dir' | '--controllers' | '--broker-sets' | '--replicas' | '--cluster-name' | '--broker-conf' |\
                    '--controller-conf' | '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'sendMessage' | 'send-message')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-p' | '--body' | '-k' | '--key' | '--keys' |\
                    '-c' | '--tags' | '--message-group' | '--property' | '-b' | '-bn' | '--broker' | '--brokerName' |\
                    '-i' | '-q' | '--qid' | '--queueId' | '--count' | '--deliverTime' | '--delay' | '--transaction' |\
                    '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'skipAccumulatedMessage' | 'skip-accumulated-message')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-t' | '--topic' | '-f' | '--force' | '-c' |\
                    '--cluster' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'statsAll' | 'topicClusterList' | 'topicRoute' | 'topicStatus' | 'stats-all' | 'topic-cluster-list' |\
                'topic-route' | 'topic-status')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'topicList' | 'topic-list')
                case $word in
                '-a' | '--controllerAddress' | '-c' | '--clusterName' | '-o' | '--output' | '--timeout' | '-n' |\
                    '--namesrvAddr') need=1 ;;
                esac
                ;;
            'transactionStatus' | 'transaction-status')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-b' | '-bn' | '--brokerName' | '-o' | '--output' |\
                    '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateBrokerConfig' | 'update-broker-config')
                case $word in
                '-k' | '--key' | '-v' | '--value' | '-a' | '--controllerAddress' | '-b' | '--brokerAddr' | '-c' |\
                    '--clusterName' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateControllerConfig' | 'update-controller-config')
                case $word in
                '-a' | '--controllerAddress' | '-k' | '--key' | '-v' | '--value' | '-o' | '--output' | '--timeout' |\
                    '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateOrderConf' | 'update-order-conf')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-m' | '--method' | '-v' | '--orderConf' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateSubGroup' | 'update-sub-group')
                case $word in
                '-a' | '--controllerAddress' | '-g' | '--groupName' | '-c' | '--clusterName' | '-b' |\
                    '--brokerName' | '--consume-orderly' | '-r' | '--retryMaxTimes' | '-q' | '--groupRetryPolicy' |\
                    '--consume-enable' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateTopic' | 'update-topic')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-c' | '--clusterName' | '-b' | '--brokerName' |\
                    '-r' | '--readQueueNums' | '-w' | '--writeQueueNums' | '-p' | '--perm' | '--attributes' | '-o' |\
                    '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'updateTopicPerm' | 'update-topic-perm')
                case $word in
                '-a' | '--controllerAddress' | '-t' | '--topic' | '-p' | '--perm' | '-c' | '--clusterName' | '-b' |\
                    '--brokerName' | '-o' | '--output' | '--timeout' | '-n' | '--namesrvAddr') need=1 ;;
                esac
                ;;
            'wait insync')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '-n' | '--members' | '--timeout' | '-o' |\
                    '--output') need=1 ;;
                esac
                ;;
            'wait master')
                case $word in
                '-a' | '--controllerAddress' | '-bn' | '--brokerName' | '--other-than' | '-b' | '--brokerId' |\
                    '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            'wait quorum')
                case $word in
                '-a' | '--controllerAddress' | '--timeout' | '-o' | '--output') need=1 ;;
                esac
                ;;
            esac
            ;;
        *)
            case "$path|$word" in
            '|addBroker' | '|addWritePerm' | '|assignPreferredMaster' | '|brokerStatus' | '|cleanBrokerMetadata' |\
                '|cloneGroupOffset' | '|clusterList' | '|consumeMessage' | '|consumerConnection' |\
                '|consumerProgress' | '|consumerStatus' | '|deleteExpiredCommitLog' | '|deleteSubGroup' |\
                '|deleteTopic' | '|electMaster' | '|epochs' | '|getBrokerConfig' | '|getBrokerEpoch' |\
                '|getConsumerConfig' | '|getControllerConfig' | '|getControllerMetaData' | '|getSyncStateSet' |\
                '|haStatus' | '|listBrokers' | '|printMsg' | '|printMsgByQueue' | '|producerConnection' |\
                '|queryCq' | '|queryMsgById' | '|queryMsgByKey' | '|queryMsgByOffset' | '|queryMsgByUniqueKey' |\
                '|removeBroker' | '|resetMasterFlushOffset' | '|resetOffsetByOffset' | '|resetOffsetByTime' |\
                '|sandbox' | '|sendMessage' | '|skipAccumulatedMessage' | '|statsAll' | '|topicClusterList' |\
                '|topicList' | '|topicRoute' | '|topicStatus' | '|transactionStatus' | '|transferMaster' |\
                '|updateBrokerConfig' | '|updateControllerConfig' | '|updateOrderConf' | '|updateSubGroup' |\
                '|updateTopic' | '|updateTopicPerm' | '|wait' | '|wipeWritePerm' | '|add-broker' |\
                '|add-write-perm' | '|assign-preferred-master' | '|broker-status' | '|clean-broker-metadata' |\
                '|clone-group-offset' | '|cluster-list' | '|consume-message' | '|consumer-connection' |\
                '|consumer-progress' | '|consumer-status' | '|delete-expired-commit-log' | '|delete-sub-group' |\
                '|delete-topic' | '|elect-master' | '|get-broker-config' | '|get-broker-epoch' |\
                '|get-consumer-config' | '|get-controller-config' | '|get-controller-meta-data' |\
                '|get-sync-state-set' | '|ha-status' | '|list-brokers' | '|print-msg' | '|print-msg-by-queue' |\
                '|producer-connection' | '|query-cq' | '|query-msg-by-id' | '|query-msg-by-key' |\
                '|query-msg-by-offset' | '|query-msg-by-unique-key' | '|remove-broker' |\
                '|reset-master-flush-offset' | '|reset-offset-by-offset' | '|reset-offset-by-time' |\
                '|send-message' | '|skip-accumulated-message' | '|stats-all' | '|topic-cluster-list' |\
                '|topic-list' | '|topic-route' | '|topic-status' | '|transaction-status' | '|transfer-master' |\
                '|update-broker-config' | '|update-controller-config' | '|update-order-conf' | '|update-sub-group' |\
                '|update-topic' | '|update-topic-perm' | '|wipe-write-perm' | 'epochs|collect' | 'epochs|report' |\
                'epochs|serve' | 'epochs|synth' | 'sandbox|down' | 'sandbox|kill' | 'sandbox|start' |\
                'sandbox|status' | 'sandbox|stop' | 'sandbox|up' | 'wait|insync' | 'wait|master' | 'wait|quorum') path=${path:+$path }$word pos=0 ;;
            *) pos=$((pos + 1)) ;;
            esac
            ;;
        esac
    done
    if ((need == 0)) && [[ $cur == -*=* ]]; then  # --opt=value as one word
        opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=} need=1
    fi
    if ((need > 0)); then
        [[ $cur == = ]] && cur=''
        case $path in
        '')
            case $opt in
            '--credentialsFile' | '--tlsCaFile' | '--tlsCertFile' | '--tlsKeyFile') gen=(-f) ;;
            esac
            ;;
        'addBroker' | 'add-broker')
            case $opt in
            '-b' | '--brokerConfigPath') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'addWritePerm' | 'assignPreferredMaster' | 'brokerStatus' | 'cleanBrokerMetadata' | 'cloneGroupOffset' |\
            'clusterList' | 'consumeMessage' | 'consumerConnection' | 'consumerProgress' | 'consumerStatus' |\
            'deleteExpiredCommitLog' | 'deleteSubGroup' | 'deleteTopic' | 'electMaster' | 'epochs serve' |\
            'getBrokerConfig' | 'getBrokerEpoch' | 'getConsumerConfig' | 'getControllerConfig' |\
            'getControllerMetaData' | 'getSyncStateSet' | 'haStatus' | 'listBrokers' | 'printMsg' |\
            'printMsgByQueue' | 'producerConnection' | 'queryCq' | 'queryMsgById' | 'queryMsgByKey' |\
            'queryMsgByUniqueKey' | 'removeBroker' | 'resetMasterFlushOffset' | 'resetOffsetByOffset' |\
            'resetOffsetByTime' | 'skipAccumulatedMessage' | 'statsAll' | 'topicClusterList' | 'topicList' |\
            'topicRoute' | 'topicStatus' | 'transactionStatus' | 'transferMaster' | 'updateBrokerConfig' |\
            'updateControllerConfig' | 'updateOrderConf' | 'updateSubGroup' | 'updateTopic' | 'updateTopicPerm' |\
            'wait insync' | 'wait master' | 'wait quorum' | 'wipeWritePerm' | 'add-write-perm' |\
            'assign-preferred-master' | 'broker-status' | 'clean-broker-metadata' | 'clone-group-offset' |\
            'cluster-list' | 'consume-message' | 'consumer-connection' | 'consumer-progress' | 'consumer-status' |\
            'delete-expired-commit-log' | 'delete-sub-group' | 'delete-topic' | 'elect-master' |\
            'get-broker-config' | 'get-broker-epoch' | 'get-consumer-config' | 'get-controller-config' |\
            'get-controller-meta-data' | 'get-sync-state-set' | 'ha-status' | 'list-brokers' | 'print-msg' |\
            'print-msg-by-queue' | 'producer-connection' | 'query-cq' | 'query-msg-by-id' | 'query-msg-by-key' |\
            'query-msg-by-unique-key' | 'remove-broker' | 'reset-master-flush-offset' | 'reset-offset-by-offset' |\
            'reset-offset-by-time' | 'skip-accumulated-message' | 'stats-all' | 'topic-cluster-list' | 'topic-list' |\
            'topic-route' | 'topic-status' | 'transaction-status' | 'transfer-master' | 'update-broker-config' |\
            'update-controller-config' | 'update-order-conf' | 'update-sub-group' | 'update-topic' |\
            'update-topic-perm' | 'wipe-write-perm')
            case $opt in
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs collect')
            case $opt in
            '--out' | '--fleet' | '--from-stores') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs report')
            case $opt in
            '--input' | '--out') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'epochs synth')
            case $opt in
            '--out') gen=(-f) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'queryMsgByOffset' | 'query-msg-by-offset')
            case $opt in
            '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'sandbox down' | 'sandbox kill' | 'sandbox start' | 'sandbox status' | 'sandbox stop' | 'sandbox up')
            case $opt in
            '--dir') gen=(-d) ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        'sendMessage' | 'send-message')
            case $opt in
            '--transaction') gen=(-W 'commit rollback check') ;;
            '-o' | '--output') gen=(-W 'table json legacy') ;;
            esac
            ;;
        esac
    elif [[ $cur == -* ]]; then
        case $path in
        '') gen=(-W '--accessKey --secretKey --credentialsFile --tls --tlsCaFile --tlsCertFile --tlsKeyFile --version -h --help') ;;
        'addBroker' | 'add-broker') gen=(-W '-c --brokerContainerAddr -b --brokerConfigPath -o --output --timeout -n --namesrvAddr -h --help') ;;
        'addWritePerm' | 'wipeWritePerm' | 'add-write-perm' | 'wipe-write-perm') gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'assignPreferredMaster' | 'assign-preferred-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --clear --wait --timeout -o --output -n --namesrvAddr -h --help') ;;
        'brokerStatus' | 'deleteExpiredCommitLog' | 'getBrokerConfig' | 'broker-status' |\
            'delete-expired-commit-log' | 'get-broker-config') gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'cleanBrokerMetadata' | 'clean-broker-metadata') gen=(-W '-a --controllerAddress -bn --brokerName -b --brokerControllerIdsToClean --wholeSet -c --clusterName -l --cleanLivingBroker -o --output --timeout -n --namesrvAddr -h --help') ;;
        'cloneGroupOffset' | 'clone-group-offset') gen=(-W '-a --controllerAddress -s --srcGroup -d --destGroup -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'clusterList' | 'cluster-list') gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'consumeMessage' | 'consume-message') gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -i -q --queueId --offset -c --MessageNumber --max --brokerAddr -g --consumerGroup --filter --invisible-time --wait --no-ack -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerConnection' | 'consumer-connection') gen=(-W '-g --consumerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerProgress' | 'consumer-progress') gen=(-W '-a --controllerAddress -g --groupName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerStatus' | 'consumer-status') gen=(-W '-g --consumerGroup -i --clientId -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteSubGroup' | 'delete-sub-group') gen=(-W '-a --controllerAddress -c --clusterName -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteTopic' | 'delete-topic') gen=(-W '-a --controllerAddress -c --clusterName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'electMaster' | 'elect-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId -o --output --timeout -n --namesrvAddr -h --help') ;;
        'epochs' | 'sandbox' | 'wait') gen=(-W '-h --help') ;;
        'epochs collect') gen=(-W '--out --fleet -a --controllerAddress -c --cluster-name --clusterName --from-stores --strict -o --output --timeout -h --help') ;;
        'epochs report') gen=(-W '--input --master --remote --since --top --out --details --conf -o --output -h --help') ;;
        'epochs serve') gen=(-W '--port --master --conf --start-timeout -o --output -h --help') ;;
        'epochs synth') gen=(-W '--out --clusters --sets --replicas --epochs --seed --snapshots -o --output -h --help') ;;
        'getBrokerEpoch' | 'getSyncStateSet' | 'get-broker-epoch' | 'get-sync-state-set') gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'getConsumerConfig' | 'get-consumer-config') gen=(-W '-a --controllerAddress -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getControllerConfig' | 'getControllerMetaData' | 'get-controller-config' | 'get-controller-meta-data') gen=(-W '-a --controllerAddress -o --output --timeout -n --namesrvAddr -h --help') ;;
        'haStatus' | 'ha-status') gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'listBrokers' | 'list-brokers') gen=(-W '-c --brokerContainerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'printMsg' | 'print-msg') gen=(-W '-a --controllerAddress -t --topic -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -d --printBody -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'printMsgByQueue' | 'print-msg-by-queue') gen=(-W '-a --controllerAddress -t --topic -bn --brokerName -i --queueId -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -p --print -d --printBody -f --calculate --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'producerConnection' | 'producer-connection') gen=(-W '-t --topic -g --producerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryCq' | 'query-cq') gen=(-W '-a --controllerAddress -t --topic -q --queue -i --index -c --count -b --brokerAddr -bn --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgById' | 'query-msg-by-id') gen=(-W '-a --controllerAddress -i --msgId --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByKey' | 'query-msg-by-key') gen=(-W '-a --controllerAddress -t --topic -k --msgKey -b --beginTimestamp -e --endTimestamp -m --maxNum -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByOffset' | 'query-msg-by-offset') gen=(-W '-a --controllerAddress -t --topic -b --brokerName -i --queueId -o --offset --brokerAddr --body-format --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByUniqueKey' | 'query-msg-by-unique-key') gen=(-W '-a --controllerAddress -i --msgId -t --topic --showAll -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'removeBroker' | 'remove-broker') gen=(-W '-c --brokerContainerAddr -b --brokerIdentity -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetMasterFlushOffset' | 'reset-master-flush-offset') gen=(-W '-b --brokerAddr --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByOffset' | 'reset-offset-by-offset') gen=(-W '-a --controllerAddress -g --groupName -t --topic -b --brokerName -i -q --queueId --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByTime' | 'reset-offset-by-time') gen=(-W '-a --controllerAddress -g --groupName -t --topic -s --timestamp -f --force -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'sandbox down') gen=(-W '--dir --purge -o --output -h --help') ;;
        'sandbox kill') gen=(-W '--dir --signal -bn --brokerName -o --output -h --help') ;;
        'sandbox start' | 'sandbox status' | 'sandbox stop') gen=(-W '--dir -o --output -h --help') ;;
        'sandbox up') gen=(-W '--dir --controllers --broker-sets --replicas --cluster-name --broker-conf --controller-conf --timeout --secure -o --output -h --help') ;;
        'sendMessage' | 'send-message') gen=(-W '-a --controllerAddress -t --topic -p --body -k --key --keys -c --tags --message-group --property -b -bn --broker --brokerName -i -q --qid --queueId --count --deliverTime --delay --transaction -o --output --timeout -n --namesrvAddr -h --help') ;;
        'skipAccumulatedMessage' | 'skip-accumulated-message') gen=(-W '-a --controllerAddress -g --groupName -t --topic -f --force -c --cluster -o --output --timeout -n --namesrvAddr -h --help') ;;
        'statsAll' | 'stats-all') gen=(-W '-a --controllerAddress -t --topic --activeTopic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicClusterList' | 'topicRoute' | 'topicStatus' | 'topic-cluster-list' | 'topic-route' | 'topic-status') gen=(-W '-a --controllerAddress -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicList' | 'topic-list') gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transactionStatus' | 'transaction-status') gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transferMaster' | 'transfer-master') gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --timeout --dry-run -o --output -n --namesrvAddr -h --help') ;;
        'updateBrokerConfig' | 'update-broker-config') gen=(-W '-k --key -v --value -a --controllerAddress -b --brokerAddr -c --clusterName --reachable-only -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateControllerConfig' | 'update-controller-config') gen=(-W '-a --controllerAddress -k --key -v --value -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateOrderConf' | 'update-order-conf') gen=(-W '-a --controllerAddress -t --topic -m --method -v --orderConf -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateSubGroup' | 'update-sub-group') gen=(-W '-a --controllerAddress -g --groupName -c --clusterName -b --brokerName --consume-orderly -r --retryMaxTimes -q --groupRetryPolicy --consume-enable -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopic' | 'update-topic') gen=(-W '-a --controllerAddress -t --topic -c --clusterName -b --brokerName -r --readQueueNums -w --writeQueueNums -p --perm --attributes -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopicPerm' | 'update-topic-perm') gen=(-W '-a --controllerAddress -t --topic -p --perm -c --clusterName -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'wait insync') gen=(-W '-a --controllerAddress -bn --brokerName -n --members --timeout -o --output -h --help') ;;
        'wait master') gen=(-W '-a --controllerAddress -bn --brokerName --other-than -b --brokerId --timeout -o --output -h --help') ;;
        'wait quorum') gen=(-W '-a --controllerAddress --timeout -o --output -h --help') ;;
        esac
    else
        case "$path|$pos" in
        '|0') gen=(-W 'addBroker addWritePerm assignPreferredMaster brokerStatus cleanBrokerMetadata cloneGroupOffset clusterList consumeMessage consumerConnection consumerProgress consumerStatus deleteExpiredCommitLog deleteSubGroup deleteTopic electMaster epochs getBrokerConfig getBrokerEpoch getConsumerConfig getControllerConfig getControllerMetaData getSyncStateSet haStatus listBrokers printMsg printMsgByQueue producerConnection queryCq queryMsgById queryMsgByKey queryMsgByOffset queryMsgByUniqueKey removeBroker resetMasterFlushOffset resetOffsetByOffset resetOffsetByTime sandbox sendMessage skipAccumulatedMessage statsAll topicClusterList topicList topicRoute topicStatus transactionStatus transferMaster updateBrokerConfig updateControllerConfig updateOrderConf updateSubGroup updateTopic updateTopicPerm wait wipeWritePerm') ;;
        'epochs|0') gen=(-W 'collect report serve synth') ;;
        'sandbox|0') gen=(-W 'down kill start status stop up') ;;
        'sandbox kill|0' | 'sandbox start|0' | 'sandbox stop|0') ;;
        'wait|0') gen=(-W 'insync master quorum') ;;
        'addBroker|'* | 'add-broker|'*) gen=(-W '-c --brokerContainerAddr -b --brokerConfigPath -o --output --timeout -n --namesrvAddr -h --help') ;;
        'addWritePerm|'* | 'wipeWritePerm|'* | 'add-write-perm|'* | 'wipe-write-perm|'*) gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'assignPreferredMaster|'* | 'assign-preferred-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --clear --wait --timeout -o --output -n --namesrvAddr -h --help') ;;
        'brokerStatus|'* | 'deleteExpiredCommitLog|'* | 'getBrokerConfig|'* | 'broker-status|'* |\
            'delete-expired-commit-log|'* | 'get-broker-config|'*) gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'cleanBrokerMetadata|'* | 'clean-broker-metadata|'*) gen=(-W '-a --controllerAddress -bn --brokerName -b --brokerControllerIdsToClean --wholeSet -c --clusterName -l --cleanLivingBroker -o --output --timeout -n --namesrvAddr -h --help') ;;
        'cloneGroupOffset|'* | 'clone-group-offset|'*) gen=(-W '-a --controllerAddress -s --srcGroup -d --destGroup -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'clusterList|'* | 'cluster-list|'*) gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'consumeMessage|'* | 'consume-message|'*) gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -i -q --queueId --offset -c --MessageNumber --max --brokerAddr -g --consumerGroup --filter --invisible-time --wait --no-ack -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerConnection|'* | 'consumer-connection|'*) gen=(-W '-g --consumerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerProgress|'* | 'consumer-progress|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'consumerStatus|'* | 'consumer-status|'*) gen=(-W '-g --consumerGroup -i --clientId -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteSubGroup|'* | 'delete-sub-group|'*) gen=(-W '-a --controllerAddress -c --clusterName -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'deleteTopic|'* | 'delete-topic|'*) gen=(-W '-a --controllerAddress -c --clusterName -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'electMaster|'* | 'elect-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId -o --output --timeout -n --namesrvAddr -h --help') ;;
        'epochs collect|'*) gen=(-W '--out --fleet -a --controllerAddress -c --cluster-name --clusterName --from-stores --strict -o --output --timeout -h --help') ;;
        'epochs report|'*) gen=(-W '--input --master --remote --since --top --out --details --conf -o --output -h --help') ;;
        'epochs serve|'*) gen=(-W '--port --master --conf --start-timeout -o --output -h --help') ;;
        'epochs synth|'*) gen=(-W '--out --clusters --sets --replicas --epochs --seed --snapshots -o --output -h --help') ;;
        'getBrokerEpoch|'* | 'getSyncStateSet|'* | 'get-broker-epoch|'* | 'get-sync-state-set|'*) gen=(-W '-a --controllerAddress -b --brokerName -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'getConsumerConfig|'* | 'get-consumer-config|'*) gen=(-W '-a --controllerAddress -g --groupName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'getControllerConfig|'* | 'getControllerMetaData|'* | 'get-controller-config|'* |\
            'get-controller-meta-data|'*) gen=(-W '-a --controllerAddress -o --output --timeout -n --namesrvAddr -h --help') ;;
        'haStatus|'* | 'ha-status|'*) gen=(-W '-a --controllerAddress -b --brokerAddr -c --clusterName -o --output --timeout -i --interval --count -n --namesrvAddr -h --help') ;;
        'listBrokers|'* | 'list-brokers|'*) gen=(-W '-c --brokerContainerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'printMsg|'* | 'print-msg|'*) gen=(-W '-a --controllerAddress -t --topic -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -d --printBody -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'printMsgByQueue|'* | 'print-msg-by-queue|'*) gen=(-W '-a --controllerAddress -t --topic -bn --brokerName -i --queueId -c --charsetName -s --subExpression -b --beginTimestamp -e --endTimestamp -p --print -d --printBody -f --calculate --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'producerConnection|'* | 'producer-connection|'*) gen=(-W '-t --topic -g --producerGroup -a --controllerAddress -b --brokerAddr -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryCq|'* | 'query-cq|'*) gen=(-W '-a --controllerAddress -t --topic -q --queue -i --index -c --count -b --brokerAddr -bn --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgById|'* | 'query-msg-by-id|'*) gen=(-W '-a --controllerAddress -i --msgId --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByKey|'* | 'query-msg-by-key|'*) gen=(-W '-a --controllerAddress -t --topic -k --msgKey -b --beginTimestamp -e --endTimestamp -m --maxNum -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByOffset|'* | 'query-msg-by-offset|'*) gen=(-W '-a --controllerAddress -t --topic -b --brokerName -i --queueId -o --offset --brokerAddr --body-format --output --timeout -n --namesrvAddr -h --help') ;;
        'queryMsgByUniqueKey|'* | 'query-msg-by-unique-key|'*) gen=(-W '-a --controllerAddress -i --msgId -t --topic --showAll -bn --brokerName --brokerAddr --body-format -o --output --timeout -n --namesrvAddr -h --help') ;;
        'removeBroker|'* | 'remove-broker|'*) gen=(-W '-c --brokerContainerAddr -b --brokerIdentity -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetMasterFlushOffset|'* | 'reset-master-flush-offset|'*) gen=(-W '-b --brokerAddr --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByOffset|'* | 'reset-offset-by-offset|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -b --brokerName -i -q --queueId --offset -o --output --timeout -n --namesrvAddr -h --help') ;;
        'resetOffsetByTime|'* | 'reset-offset-by-time|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -s --timestamp -f --force -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'sandbox down|'*) gen=(-W '--dir --purge -o --output -h --help') ;;
        'sandbox kill|'*) gen=(-W '--dir --signal -bn --brokerName -o --output -h --help') ;;
        'sandbox start|'* | 'sandbox status|'* | 'sandbox stop|'*) gen=(-W '--dir -o --output -h --help') ;;
        'sandbox up|'*) gen=(-W '--dir --controllers --broker-sets --replicas --cluster-name --broker-conf --controller-conf --timeout --secure -o --output -h --help') ;;
        'sendMessage|'* | 'send-message|'*) gen=(-W '-a --controllerAddress -t --topic -p --body -k --key --keys -c --tags --message-group --property -b -bn --broker --brokerName -i -q --qid --queueId --count --deliverTime --delay --transaction -o --output --timeout -n --namesrvAddr -h --help') ;;
        'skipAccumulatedMessage|'* | 'skip-accumulated-message|'*) gen=(-W '-a --controllerAddress -g --groupName -t --topic -f --force -c --cluster -o --output --timeout -n --namesrvAddr -h --help') ;;
        'statsAll|'* | 'stats-all|'*) gen=(-W '-a --controllerAddress -t --topic --activeTopic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicClusterList|'* | 'topicRoute|'* | 'topicStatus|'* | 'topic-cluster-list|'* | 'topic-route|'* |\
            'topic-status|'*) gen=(-W '-a --controllerAddress -t --topic -o --output --timeout -n --namesrvAddr -h --help') ;;
        'topicList|'* | 'topic-list|'*) gen=(-W '-a --controllerAddress -c --clusterName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transactionStatus|'* | 'transaction-status|'*) gen=(-W '-a --controllerAddress -t --topic -b -bn --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'transferMaster|'* | 'transfer-master|'*) gen=(-W '-a --controllerAddress -c --clusterName -bn --brokerName -b --brokerId --timeout --dry-run -o --output -n --namesrvAddr -h --help') ;;
        'updateBrokerConfig|'* | 'update-broker-config|'*) gen=(-W '-k --key -v --value -a --controllerAddress -b --brokerAddr -c --clusterName --reachable-only -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateControllerConfig|'* | 'update-controller-config|'*) gen=(-W '-a --controllerAddress -k --key -v --value -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateOrderConf|'* | 'update-order-conf|'*) gen=(-W '-a --controllerAddress -t --topic -m --method -v --orderConf -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateSubGroup|'* | 'update-sub-group|'*) gen=(-W '-a --controllerAddress -g --groupName -c --clusterName -b --brokerName --consume-orderly -r --retryMaxTimes -q --groupRetryPolicy --consume-enable -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopic|'* | 'update-topic|'*) gen=(-W '-a --controllerAddress -t --topic -c --clusterName -b --brokerName -r --readQueueNums -w --writeQueueNums -p --perm --attributes -o --output --timeout -n --namesrvAddr -h --help') ;;
        'updateTopicPerm|'* | 'update-topic-perm|'*) gen=(-W '-a --controllerAddress -t --topic -p --perm -c --clusterName -b --brokerName -o --output --timeout -n --namesrvAddr -h --help') ;;
        'wait insync|'*) gen=(-W '-a --controllerAddress -bn --brokerName -n --members --timeout -o --output -h --help') ;;
        'wait master|'*) gen=(-W '-a --controllerAddress -bn --brokerName --other-than -b --brokerId --timeout -o --output -h --help') ;;
        'wait quorum|'*) gen=(-W '-a --controllerAddress --timeout -o --output -h --help') ;;
        esac
    fi
    ((${#gen[@]})) || return 0
    [[ ${gen[0]} == -W ]] || compopt -o filenames 2>/dev/null
    while IFS= read -r word; do
        COMPREPLY+=("$prefix$word")
    done < <(compgen "${gen[@]}" -- "$cur")
    return 0
}

complete -F _mqadmin mqadmin
